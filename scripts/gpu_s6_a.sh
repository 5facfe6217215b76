#!/usr/bin/env bash
# Session 6, call A (2-GPU host, first GPU only): batched nvcc compiles on a GPU.
#   GPU tests of compile-ahead and batches; benchmarks/compilers.py with kt-tui's batches beside;
#   one whole CLI session of 300 matmul_tiled configurations, one configuration a call against eight.
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data CUDA_VISIBLE_DEVICES=0
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; nproc; } > $OUT/a-machine.txt
timeout 150 python -m pytest -q -p no:cacheprovider tests/gpu/test_compile_batches.py tests/gpu/test_compile_ahead.py \
  tests/gpu/test_first_result.py 2>&1 | tail -8 > $OUT/a-tests.txt
timeout 170 python benchmarks/compilers.py --configs 96 --paths "nvcc -rdc (kernel_tuner's pycuda),nvcc -rdc + dlink" \
  --batch 4,8,16 > $OUT/a-compilers.txt 2>&1
run() {  # $1 = label, rest = env
  local label=$1; shift
  local t0=$(date +%s.%N)
  env "$@" KT_TUI_PREFETCH_STATS=$OUT/a-stats-$label.jsonl timeout 100 python -m kt_tui run benchmarks/spaces/matmul_tiled.cu \
    --auto --json --backend pycuda --search brute_force --max-configs 300 > /tmp/$label.json 2> /tmp/$label.err
  local rc=$?
  local t1=$(date +%s.%N)
  python - "$label" "$rc" "$t0" "$t1" <<'PY' >> $OUT/a-sessions.txt
import json, sys
label, rc, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
try:
    d = json.load(open(f"/tmp/{label}.json")); best = d.get("best"); n = d.get("results")
except Exception as e:
    best, n = f"json: {e}", None
print(f"{label:10} rc {rc} wall {t1 - t0:6.2f} s results {n} best {best}")
PY
  grep -h "compiled ahead\|compiling one configuration" /tmp/$label.err | tail -3 >> $OUT/a-sessions.txt
}
python -m kt_tui run examples/vector_add.cu --auto --json --backend pycuda > /dev/null 2>&1  # probe remembered
for i in 1 2; do run batch1-$i KT_TUI_COMPILE_BATCH=1; run batch8-$i KT_TUI_COMPILE_BATCH=8; done
cat $OUT/a-tests.txt $OUT/a-compilers.txt $OUT/a-sessions.txt
