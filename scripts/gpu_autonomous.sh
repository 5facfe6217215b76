#!/usr/bin/env bash
# Record the scripted autonomous sessions on the GPU: real compile, verify and tune of every
# kernel the scripted replies propose. Results: $OUT/autonomous.tgz (session DB + caches).
set -u
data=$OUT/auto
mkdir -p "$data"
export KT_TUI_DATA_DIR=$data KT_TUI_DB=$data/autonomous.db
for s in matmul matmul-hand-edit vector_add; do
  k=${s%-hand-edit}
  t0=$SECONDS
  timeout 400 python scripts/scripted_session.py "tests/scripted/$s.json" run "examples/$k.cu" \
    --strategy autonomous --auto --json --backend pycuda > "$data/$s.json" 2> "$data/$s.log"
  echo "$s rc=$? $((SECONDS - t0))s"
  python - "$data/$s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(" ", d["state"], d["gpu"], "baseline", d["baseline_ms"], "best", d["best"], "speedup", d["speedup"])
for s in d["steps"]:
    print("   ", s["id"], s["state"], (s["reason"] or "")[:100])
PY
done
tar czf "$OUT/autonomous.tgz" --exclude=refs -C "$OUT" auto && echo packed
