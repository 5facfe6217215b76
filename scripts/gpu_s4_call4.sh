#!/usr/bin/env bash
# One H100 (session 4, call 4): issue 21's last imports beside kernel_tuner, after the benchmark's fix.
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/times.txt
t0=$SECONDS
timeout 300 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 20 --timeout 40 --budget 270 \
  --out $OUT/imports-gpu.txt cuda/sepconv cuda/sepconv_parallel cuda/vector_add_codegen cuda/vector_add_jinja \
  cuda/vector_add_metric cuda/vector_add_nvcuda cuda/vector_add_observers cuda/vector_add_parallel \
  cuda-c++/vector_add cuda-c++/vector_add_defines > $OUT/imports.log 2>&1
echo "imports rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt; t0=$SECONDS
timeout 200 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 10 --timeout 190 \
  --out $OUT/imports-reduction.txt cuda/reduction >> $OUT/imports.log 2>&1
echo "reduction import rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt
grep "^| \|silently" $OUT/imports-gpu.txt $OUT/imports-reduction.txt | tail -16; cat $OUT/times.txt
