#!/usr/bin/env bash
# Session 8, call B (2-GPU host, after the two Ray-wheel calls): whole CLI sessions on this session's code
# (the check's GPU measures once the test has left it; compile processes load NVRTC as they start; the
# compile server runs a compile two workers ask for once; 8 compiles ahead per core), nvcuda and pycuda,
# --gpus 1 / --gpus 2 / --ray on the two-node cluster. Bytecode for every package the sessions import,
# the image's own included (this box sets PYTHONDONTWRITEBYTECODE and its packages have none; pip
# compiles them where users install).
set -u
source scripts/gpu_bytecode.sh
{ echo "== bytecode: $BYTECODE"; } > $OUT/b.txt
KT_TUI_BENCH_TRACES=/tmp/tr SKIP_CUPY=1 BACKENDS="nvcuda pycuda" CONFIGS=300,all MULTI_S=230 bash scripts/gpu_multi.sh > /dev/null 2>&1
cat $OUT/cluster.txt $OUT/multigpu-cli-nvcuda.txt $OUT/multigpu-cli-pycuda.txt $OUT/ray-deaths.txt >> $OUT/b.txt
rm -f $OUT/gpus.txt $OUT/cupy.txt $OUT/cluster.txt $OUT/ray-deaths.txt $OUT/multigpu-cli-nvcuda.txt $OUT/multigpu-cli-pycuda.txt
mv $OUT/logs.tgz $OUT/b-logs.tgz 2>/dev/null
tar czf $OUT/b-traces.tgz -C /tmp tr 2>/dev/null
cat $OUT/b.txt
