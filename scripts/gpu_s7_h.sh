#!/usr/bin/env bash
# Session 7, call H (2-GPU host, after the two Ray-wheel calls): nvcuda's whole CLI sessions once more on
# the final code (call G's compile processes warmed NVRTC as they started, which made the first
# results later; that was taken out), --gpus 1 / --gpus 2 / --ray on the two-node cluster.
set -u
python -m compileall -q -j 0 /tmp/site kt_tui > /dev/null 2>&1  # bytecode, as an installed kt-tui has it
KT_TUI_BENCH_TRACES=/tmp/kt-data/traces SKIP_CUPY=1 BACKENDS=nvcuda CONFIGS=300,all MULTI_S=150 bash scripts/gpu_multi.sh > /dev/null 2>&1
rm -f $OUT/gpus.txt $OUT/logs.tgz
cat $OUT/multigpu-cli-nvcuda.txt $OUT/ray-deaths.txt
