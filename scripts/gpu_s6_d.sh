#!/usr/bin/env bash
# Session 6, call D (2-GPU host): issue 26 after the run is dealt again while it goes (gpu/dealing.py:
# a GPU that is done takes half of the busiest one's rest; the check's GPU starts once its test is over).
# pycuda and nvcuda, whole CLI sessions, --gpus 1 / --gpus 2 (no Ray in this call). Bytecode compiled once.
set -u
python -m compileall -q -j 0 /tmp/site > /dev/null 2>&1
SKIP_CUPY=1 BACKENDS="pycuda nvcuda" CONFIGS=300,all MULTI_S=200 bash scripts/gpu_multi.sh > /dev/null 2>&1
rm -f $OUT/logs.tgz
cat $OUT/multigpu-cli-pycuda.txt $OUT/multigpu-cli-nvcuda.txt; ls $OUT
