#!/usr/bin/env bash
# the last GPU call of 2026-11-26, on the two-H100 host (no Ray: its wheel costs two more calls):
# cupy's probe, two imports beside kernel_tuner, whole CLI sessions with --gpus 1 / 2, the first-result overhead
set -u
export NCCL_NVLS_ENABLE=0 KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/c6.db
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv; date -u; nproc; } > $OUT/gpus.txt
t0=$SECONDS
{ echo "== cupy"; timeout 60 python -m kt_tui run examples/vector_add.cu --auto --json --backend cupy 2>&1 | tail -c 600; } > $OUT/cupy.txt 2>&1
echo "cupy $((SECONDS - t0)) s" >> $OUT/gpus.txt; t0=$SECONDS
timeout 100 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 20 --timeout 40 --budget 70 --out $OUT/imports-gpu.txt cuda/convolution_correct cuda/convolution > /tmp/imports-gpu.log 2>&1
echo "imports $((SECONDS - t0)) s" >> $OUT/gpus.txt; t0=$SECONDS
timeout 150 python benchmarks/multigpu_cli.py --configs 300 --gpus 2 --timeout 60 \
  --llm-session tests/scripted/matmul.json:autonomous:examples/matmul.cu \
  --out $OUT/multigpu-cli-h100-$(date -u +%F).json > $OUT/multigpu-cli.txt 2>&1
echo "multigpu $((SECONDS - t0)) s" >> $OUT/gpus.txt; t0=$SECONDS
timeout ${OVERHEAD_S:-80} python benchmarks/overhead.py --gpu --backend pycuda --repeat 1 --max-configs 25 --deadline-s $(( ${OVERHEAD_S:-80} - 20 )) --out /tmp/overhead > $OUT/overhead.txt 2>&1
echo "overhead $((SECONDS - t0)) s" >> $OUT/gpus.txt
tail -n 3 $OUT/cupy.txt; tail -n 6 $OUT/imports-gpu.txt; grep -E 'wall|ratio' $OUT/multigpu-cli.txt | tail -6; tail -n 8 $OUT/overhead.txt; cat $OUT/gpus.txt
