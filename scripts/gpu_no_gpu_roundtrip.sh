#!/usr/bin/env bash
# The no-GPU workflow for real: a session made with --backend none (scripted LLM replies), its
# database copied, then resumed on this machine's GPU. Run on a GPU machine from the repo root.
# Proof: the resume prints `"state": "finished"` with "results" > 0 and no run left "not measured".
set -euo pipefail
BACKEND=${1:-pycuda}  # `sim` tries it without a GPU (replays sessions/caches)
[ "$BACKEND" = sim ] && SIM=1 || SIM=
work=$(mktemp -d)
export KT_TUI_CONFIG_DIR=$work/config KT_TUI_DATA_DIR=$work/data
python scripts/scripted_session.py tests/scripted/matmul.json run examples/matmul.cu --strategy autonomous \
    --auto --backend none --db "$work/made-without-gpu.db" | tail -1
cp "$work/made-without-gpu.db" "$work/copied.db"
sid=$(python -m kt_tui sessions --db "$work/copied.db" --json | python -c "import json,sys; print(json.load(sys.stdin)[0]['id'])")
python -m kt_tui resume "$sid" --db "$work/copied.db" --auto --json --backend "$BACKEND" --llm none ${SIM:+--sim-cache sessions/caches} > "$work/resumed.json"
python - "$work/resumed.json" "$work/copied.db" "$sid" <<'PY'
import json, sqlite3, sys
out = json.load(open(sys.argv[1]))
left = sqlite3.connect(sys.argv[2]).execute(
    "select count(*) from runs where session = ? and state = 'not measured'", (sys.argv[3],)
).fetchone()[0]
print(f"state {out['state']}, {out['results']} results, best {out['best'] and out['best']['time_ms']} ms, "
      f"steps {[(s['id'], s['state']) for s in out['steps']]}, runs left not measured: {left}")
sys.exit(0 if out["state"] == "finished" and out["results"] > 0 and left == 0 else 1)
PY
