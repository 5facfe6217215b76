#!/usr/bin/env bash
# Everything kt-tui runs on the lent GPU machine, in one call; results land in $OUT/gpu-results.tgz.
# usage (device tool): source .gpubox/setup.sh && bash scripts/gpu_session.sh [record|tests|kill|other|explicit|harness]...
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
    tests) KT_TUI_GPU_REPORT=$data/gpu-report.txt timeout 400 python -m pytest -m gpu tests -q -p no:cacheprovider 2>&1 | tee "$data/pytest-gpu.log" | tail -15 ;;
    explicit) t0=$SECONDS
      KT_TUI_DB=$data/explicit.db timeout 300 python scripts/scripted_session.py tests/scripted/matmul-explicit.json \
        run examples/matmul.cu --strategy explicit --steps tests/scripted/matmul-steps.toml --auto --json \
        --backend pycuda > "$data/explicit.json" 2> "$data/explicit.log"
      echo "explicit rc=$? $((SECONDS - t0))s"; grep -E "^step|best" "$data/explicit.log" | tail -8 ;;
    prefetch) KT_TUI_DB=$data/prefetch.db timeout 200 python -m kt_tui run benchmarks/spaces/matmul_tiled.cu --auto --json \
        --backend nvcuda --search brute_force --no-seeds --max-configs 80 > "$data/prefetch.json" 2> "$data/prefetch.log"
      python scripts/compare_cache.py "$data/prefetch.db" benchmarks/spaces/recorded/matmul_tiled-066a8be83f3c46fd.json
      grep -i "compiling ahead" "$data/logs/gpu-worker.log" | head -3 ;;
    profile) mkdir -p "$data/prof"; KT_TUI_PREFETCH=0 KT_TUI_PROFILE=$data/prof KT_TUI_DB=$data/prof.db timeout 200 \
        python -m kt_tui run benchmarks/spaces/reduction.cu --auto --json --backend nvcuda --search brute_force \
        --no-seeds --max-configs 150 > /dev/null 2>&1
      for f in "$data"/prof/*sweep*.prof; do python -c "import pstats,sys; pstats.Stats(sys.argv[1]).sort_stats('tottime').print_stats(18)" "$f" | tail -30; done ;;
    harness-big) timeout 420 python benchmarks/harness.py benchmarks/spaces/matmul_tiled.cu --backend nvcuda \
        --tools "kt-tui,kernel_tuner+answer" --json "$data/harness-big.json" 2>&1 | tee "$data/harness-big.txt" ;;
    harness) timeout 300 python benchmarks/harness.py --backend nvcuda --json "$data/harness.json" 2>&1 | tee "$data/harness.txt" ;;
    kill) timeout 200 python scripts/kill_resume.py examples/matmul.cu --db "$data/kill.db" --backend pycuda --after 6 | tee "$data/kill-resume.json" ;;
    export) t0=$SECONDS  # a one-prompt session (scripted replies), its export, and the exported script under plain kernel_tuner
      KT_TUI_DB=$data/export.db timeout 200 python scripts/scripted_session.py tests/scripted/matmul-one-prompt.json \
        run examples/matmul.cu --strategy one-prompt --auto --json --backend pycuda > "$data/one-prompt.json" 2> "$data/one-prompt.log"
      echo "one-prompt rc=$? $((SECONDS - t0))s"
      KT_TUI_DB=$data/export.db python -m kt_tui export --out "$data/export" --json > "$data/export.json" 2>&1
      echo "export rc=$?"; (cd "$data/export" && timeout 200 python tune_matmul.py > tune-script.txt 2>&1; echo "tune_matmul.py rc=$?"; tail -5 tune-script.txt)
      python -c "import json; d=json.load(open('$data/export.json')); b=d.get('best') or d; print('kt-tui best', b.get('time_ms'), b.get('params'))" ;;
    other) for b in nvcuda cupy; do for k in vector_add matmul transpose reduction; do run "$k" "$b"; done; done ;;
  esac
  cp /tmp/kt-install.log "$data/" 2>/dev/null
  tar czf "$OUT/gpu-results.tgz" --exclude=refs -C "$OUT" data && echo "packed after $step: $(du -h "$OUT/gpu-results.tgz" | cut -f1)"
done
