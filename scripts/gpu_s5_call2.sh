#!/usr/bin/env bash
# Session 5, call 2 (one GPU): the compile changes for real (pycuda's relocatable code linked on the
# compile pool, NVRTC in processes, read-only shared inputs, the reference kept without a copy):
# GPU tests, the compile bench with instruction-level SASS, matmul 300 with pycuda and nvcuda.
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; nproc; } > $OUT/env.txt 2>&1
timeout 240 python -m pytest -q -p no:cacheprovider -m gpu tests/gpu/test_compile_ahead.py tests/gpu/test_first_result.py \
  tests/gpu/test_gpu.py tests/gpu/test_gpu_checks.py 2>&1 | tail -15 | tee $OUT/gputests.txt
timeout 100 python benchmarks/compilers.py --configs 48 --paths "nvcc -rdc (kernel_tuner's pycuda),nvcc -rdc + dlink,nvrtc" 2>&1 | tee $OUT/compilers.txt
for b in pycuda nvcuda; do
  rm -f /tmp/tr; s=$SECONDS
  KT_TUI_DB=/tmp/kt-data/mm-$b.db KT_TUI_TRACE=/tmp/tr timeout 120 python -m kt_tui run benchmarks/spaces/matmul_tiled.cu --auto --json \
    --backend $b --search brute_force --max-configs 300 --gpus 1 > $OUT/mm-$b.json 2>$OUT/mm-$b.err
  echo "matmul 300 $b rc=$? wall $((SECONDS - s)) s: $(grep 'compile waits' /tmp/tr | cut -d' ' -f3- | tr '\n' ';')" | tee -a $OUT/env.txt
done
python -m kt_tui run benchmarks/big/saxpy.cu --auto --json --backend pycuda --max-configs 4 > /dev/null 2>&1
KT_TUI_TRACE=/tmp/tr2 KT_TUI_DB=/tmp/kt-data/sx.db timeout 90 python -m kt_tui run benchmarks/big/saxpy.cu --auto --json --backend pycuda --search brute_force --max-configs 4 > /dev/null 2>>$OUT/env.txt
python -c "
from kt_tui.gpu.timeline import read
m = read('/tmp/tr2'); t0 = m[0][0]
[print(f'  {t - t0:7.3f} {s}') for t, _, s in m if 'first' in s or 'inputs' in s or 'job' in s][:14]" | tee -a $OUT/env.txt
