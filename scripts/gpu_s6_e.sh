#!/usr/bin/env bash
# Session 6, call E (2-GPU host): the final code once more (pycuda, nvcuda; --gpus 1 / 2), then issue 24
# item 1's slowest first result (transpose_tiled) three times beside plain kernel_tuner, on the first GPU.
set -u
python -m compileall -q -j 0 /tmp/site > /dev/null 2>&1
SKIP_CUPY=1 BACKENDS="pycuda nvcuda" CONFIGS=300,all MULTI_S=190 bash scripts/gpu_multi.sh > /dev/null 2>&1
rm -f $OUT/logs.tgz $OUT/gpus.txt
export CUDA_VISIBLE_DEVICES=0 KT_TUI_DATA_DIR=/tmp/kt-data
timeout 170 python benchmarks/overhead.py --gpu --probe-cached --backend pycuda --repeat 3 --kernels transpose_tiled \
  --deadline-s 140 --out $OUT/ov > $OUT/overhead.txt 2>&1
cp $OUT/ov/overhead-*.txt $OUT/ 2>/dev/null; rm -rf $OUT/ov
cat $OUT/multigpu-cli-pycuda.txt $OUT/multigpu-cli-nvcuda.txt; sed -n '/^kernel /,$p' $OUT/overhead.txt | head -20; ls $OUT
