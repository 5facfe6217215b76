#!/usr/bin/env bash
# one H100: cupy's probe, the first-result overhead beside kernel_tuner, two imports beside kernel_tuner
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/c6.db
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv; date -u; nproc; } > $OUT/gpus.txt
t0=$SECONDS
{ echo "== cupy"; timeout 60 python -m kt_tui run examples/vector_add.cu --auto --json --backend cupy 2>&1 | tail -c 700; } > $OUT/cupy.txt 2>&1
echo "cupy $((SECONDS - t0)) s" >> $OUT/gpus.txt; t0=$SECONDS
timeout 200 python benchmarks/overhead.py --gpu --probe-cached --backend pycuda --max-configs 25 --repeat 1 --kernels vector_add,matmul,reduction --deadline-s 180 --out /tmp/overhead > $OUT/overhead.txt 2>&1
echo "overhead $((SECONDS - t0)) s" >> $OUT/gpus.txt; t0=$SECONDS
timeout 110 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 20 --timeout 40 --budget 80 --out $OUT/imports-gpu.txt cuda/convolution_correct cuda/convolution > /tmp/imports-gpu.log 2>&1
echo "imports $((SECONDS - t0)) s" >> $OUT/gpus.txt
tail -n 3 $OUT/cupy.txt; tail -n 30 $OUT/overhead.txt; tail -n 6 $OUT/imports-gpu.txt; cat $OUT/gpus.txt
