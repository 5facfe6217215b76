#!/usr/bin/env bash
# Session 6, call C (2-GPU host): issue 26 with nvcuda (the compile processes now die with their owner),
# then issue 24 item 1: kt-tui beside plain kernel_tuner on the big-array kernels, three repeats of the
# slowest first results, on the first GPU.
set -u
SKIP_CUPY=1 BACKENDS=nvcuda CONFIGS=${CONFIGS:-300,all} MULTI_S=${MULTI_S:-300} bash scripts/gpu_multi.sh
export CUDA_VISIBLE_DEVICES=0 KT_TUI_DATA_DIR=/tmp/kt-data
timeout ${OV_S:-240} python benchmarks/overhead.py --gpu --probe-cached --backend pycuda --repeat 3 \
  --kernels transpose_tiled,saxpy,triad --deadline-s $(( ${OV_S:-240} - 40 )) --out $OUT/ov > $OUT/overhead.txt 2>&1
sed -n '/^kernel /,/^where/p' $OUT/overhead.txt
cp $OUT/ov/overhead-*.txt $OUT/ 2>/dev/null; rm -rf $OUT/ov
