#!/usr/bin/env bash
# Session 5, call 4 (one H100): GPU tests of the compile and check changes, then kt-tui against
# plain kernel_tuner (overhead.py) on the small kernels and the eight big-array ones.
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/times.txt
timeout 200 python -m pytest -q -p no:cacheprovider tests/gpu/test_compile_ahead.py tests/gpu/test_check_gpu.py \
  tests/gpu/test_first_result.py 2>&1 | tail -6 > $OUT/gputests.txt
cat $OUT/gputests.txt
t0=$SECONDS
timeout 150 python benchmarks/overhead.py --gpu --probe-cached --backend pycuda --max-configs 25 --repeat 1 \
  --kernels vector_add,matmul,reduction --deadline-s 120 --out $OUT/ov > $OUT/overhead-small.txt 2>&1
echo "small rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt
t0=$SECONDS
timeout 330 python benchmarks/overhead.py --gpu --probe-cached --backend pycuda --repeat 1 --kernels big \
  --deadline-s 300 --out $OUT/ovb > $OUT/overhead-big.txt 2>&1
echo "big rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt
sed -n '/^kernel /,/^where/p' $OUT/overhead-small.txt $OUT/overhead-big.txt; cat $OUT/times.txt
rm -rf $OUT/ov $OUT/ovb
