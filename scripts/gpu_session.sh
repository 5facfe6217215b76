#!/usr/bin/env bash
# Everything kt-tui runs on the lent GPU machine, in one call; results land in $OUT/gpu-results.tgz.
# usage (device tool): source .gpubox/setup.sh && bash scripts/gpu_session.sh [record|tests|kill|other]...
set -u
steps=${*:-record tests kill other}
data=$OUT/data
mkdir -p "$data"
export KT_TUI_DATA_DIR=$data KT_TUI_DB=$data/gpu.db
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$data/gpu.txt"
date -u +%Y-%m-%dT%H:%MZ >> "$data/gpu.txt"
run() {  # kernel backend
  local t0=$SECONDS
  timeout 300 python -m kt_tui run "examples/$1.cu" --auto --json --backend "$2" > "$data/$1-$2.json" 2> "$data/$1-$2.log"
  echo "$1 $2 rc=$? $((SECONDS - t0))s $(python -c "import json,sys; d=json.load(open('$data/$1-$2.json')); b=d['best'] or {}; print(d['gpu'], d['results'], 'base', d['baseline_ms'], 'best', b.get('time_ms'), b.get('params'))" 2>&1 | tail -1)"
}
for step in $steps; do
  case $step in
    record) for k in vector_add matmul transpose reduction; do run "$k" pycuda; done ;;
    tests) KT_TUI_GPU_REPORT=$data/gpu-report.txt timeout 400 python -m pytest -m gpu tests/test_gpu.py -q -p no:cacheprovider 2>&1 | tee "$data/pytest-gpu.log" | tail -15 ;;
    kill) timeout 200 python scripts/kill_resume.py examples/matmul.cu --db "$data/kill.db" --backend pycuda --after 6 | tee "$data/kill-resume.json" ;;
    other) for b in nvcuda cupy; do for k in vector_add matmul transpose reduction; do run "$k" "$b"; done; done ;;
  esac
  cp /tmp/kt-install.log "$data/" 2>/dev/null
  tar czf "$OUT/gpu-results.tgz" --exclude=refs -C "$OUT" data && echo "packed after $step: $(du -h "$OUT/gpu-results.tgz" | cut -f1)"
done
