#!/usr/bin/env bash
# One H100 (2026-11-26, session 4, call 1): the check's test beside the first measurements (24 item 1):
# the GPU tests of the check and the overhead against kernel_tuner; issue 21's last imports beside
# kernel_tuner; issue 23's no-GPU round trip on a real GPU. At most 7 files under $OUT.
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/times.txt
t0=$SECONDS
timeout 110 python -m pytest -q -p no:cacheprovider -m gpu tests/gpu/test_gpu_checks.py > $OUT/gpu-checks.txt 2>&1
echo "gpu checks rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt; t0=$SECONDS
timeout 140 python benchmarks/overhead.py --gpu --probe-cached --backend pycuda --max-configs 25 --repeat 1 \
  --kernels vector_add,matmul,reduction --deadline-s 120 > $OUT/overhead.txt 2>&1
echo "overhead rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt; t0=$SECONDS
timeout 160 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 20 --timeout 40 --budget 150 \
  --out $OUT/imports-gpu.txt cuda/vector_add_codegen cuda/vector_add_jinja cuda/vector_add_metric cuda/vector_add_nvcuda \
  cuda/vector_add_observers cuda/vector_add_parallel cuda-c++/vector_add cuda-c++/vector_add_defines cuda/sepconv \
  cuda/sepconv_parallel > /tmp/imports.log 2>&1
echo "imports rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt; t0=$SECONDS
timeout 80 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 10 --timeout 75 --budget 75 \
  --out $OUT/imports-reduction.txt cuda/reduction > /tmp/imports-r.log 2>&1
echo "reduction import rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt; t0=$SECONDS
timeout 75 bash scripts/gpu_no_gpu_roundtrip.sh pycuda > $OUT/roundtrip.txt 2>&1
echo "roundtrip rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt
tail -n 3 $OUT/gpu-checks.txt; sed -n '/^kernel /,/^where/p' $OUT/overhead.txt; tail -n 2 $OUT/roundtrip.txt; cat $OUT/times.txt
