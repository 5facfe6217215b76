#!/usr/bin/env bash
# Session 7, call D (2-GPU host, after the two Ray-wheel calls): issue 26's whole CLI sessions on the
# final code, nvcuda and pycuda, --gpus 1 / --gpus 2 / --ray on a two-node cluster (one GPU a node),
# each session's whole trace kept.
set -u
python -m compileall -q -j 0 /tmp/site kt_tui > /dev/null 2>&1  # bytecode, as an installed kt-tui has it
KT_TUI_BENCH_TRACES=/tmp/kt-data/traces SKIP_CUPY=1 BACKENDS="nvcuda pycuda" CONFIGS=300,all MULTI_S=240 bash scripts/gpu_multi.sh > /dev/null 2>&1
rm -f $OUT/gpus.txt
cat $OUT/cluster.txt $OUT/multigpu-cli-nvcuda.txt $OUT/multigpu-cli-pycuda.txt $OUT/ray-deaths.txt; ls $OUT
