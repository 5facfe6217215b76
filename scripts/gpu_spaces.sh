#!/usr/bin/env bash
# Record the brute-force spaces of benchmarks/spaces on the lent GPU machine, one kernel per GPU
# where there are several, then the harness; results in $OUT/spaces.tgz (session DBs, caches, logs).
# An unfinished recording resumes next time from the DBs under .spaces/ (carry it).
# usage: source .gpubox/setup.sh && bash scripts/gpu_spaces.sh [deadline_s]
set -u
deadline=${1:-520}
data=$OUT/spaces
mkdir -p "$data"
[ -d .spaces ] && cp -r .spaces/. "$data/"
nvidia-smi --query-gpu=index,name,driver_version --format=csv > "$data/gpu.txt"
date -u +%Y-%m-%dT%H:%MZ >> "$data/gpu.txt"
ngpu=$(nvidia-smi -L | wc -l)
record() {  # gpu kernel...
  local gpu=$1; shift
  for k in "$@"; do
    local t0=$SECONDS left=$((deadline - SECONDS))
    [ $left -lt 20 ] && { echo "$k skipped: no time" >> "$data/times.txt"; continue; }
    export CUDA_VISIBLE_DEVICES=$gpu KT_TUI_DATA_DIR=$data/d$gpu KT_TUI_DB=$data/$k.db
    if [ -f "$data/$k.db" ]; then
      timeout $left python -m kt_tui resume --auto --json > "$data/$k.json" 2>> "$data/$k.log"
    else
      timeout $left python -m kt_tui run "benchmarks/spaces/$k.cu" --auto --json --backend nvcuda \
        > "$data/$k.json" 2> "$data/$k.log"
    fi
    echo "$k gpu$gpu rc=$? $((SECONDS - t0))s" >> "$data/times.txt"
  done
}
harness() {
  [ $((deadline - SECONDS)) -lt 100 ] && { echo "harness skipped: no time" >> "$data/times.txt"; return; }
  CUDA_VISIBLE_DEVICES=$1 timeout $((deadline - SECONDS)) python benchmarks/harness.py \
    --json "$data/harness.json" > "$data/harness.txt" 2>&1
}
if [ "$ngpu" -ge 2 ]; then
  record 0 matmul_tiled reduction & (record 1 convolution; harness 1) & wait
else
  record 0 reduction matmul_tiled convolution
fi
cat "$data/times.txt" "$data/harness.txt" 2>/dev/null
tar czf "$OUT/spaces.tgz" --exclude=refs -C "$OUT" spaces && du -h "$OUT/spaces.tgz"
