#!/usr/bin/env bash
# one H100: the kernel_tuner scripts not yet run beside their imports, and the --backend none round trip on pycuda
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/c7.db
mkdir -p /tmp/kt-data
t0=$SECONDS
timeout 230 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 20 --timeout 40 --budget 200 --out $OUT/imports-gpu.txt cuda/vector_add_codegen cuda/vector_add_jinja cuda/vector_add_metric cuda/vector_add_nvcuda cuda/vector_add_observers cuda/vector_add_parallel cuda-c++/vector_add cuda-c++/vector_add_defines cuda/expdist cuda/matmul > /tmp/imports-gpu.log 2>&1
echo "imports $((SECONDS - t0)) s" >> $OUT/times.txt; t0=$SECONDS
timeout 90 bash scripts/gpu_no_gpu_roundtrip.sh pycuda > $OUT/roundtrip.txt 2>&1
echo "roundtrip rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt
sed -n '/^GPU:/,$p' $OUT/imports-gpu.txt; tail -n 5 $OUT/roundtrip.txt; cat $OUT/times.txt
