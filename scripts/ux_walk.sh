#!/usr/bin/env bash
# Walk scripted sessions through every kind of gate in tmux, at 80x24 and at 200x50, and keep each
# screen as text (tmux capture-pane). The LLM is the test suite's scripted server (tests/llm_server.py,
# replies written by us), the numbers are replays of recorded caches (--backend sim).
#
# usage: scripts/ux_walk.sh [OUT_DIR]        (default: ux-walk/; needs tmux)
# OUT_DIR/WxH/SCENARIO/NN-KIND.txt is the screen at each gate; NN-end.txt the screen at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(realpath -m "${1:-ux-walk}")
PY=${PYTHON:-python3}
command -v tmux >/dev/null || { echo "ux_walk.sh: tmux is needed" >&2; exit 2; }
mkdir -p "$OUT/replies"
WORK=$(mktemp -d)  # the sessions' databases and config dir: thrown away at the end
trap 'rm -rf "$WORK"' EXIT
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

# the scripted replies of each scenario
"$PY" - "$OUT/replies" <<'PYEOF'
import json, sys
from pathlib import Path
from tests.test_config_search import SCRIPT
out = Path(sys.argv[1])
vector_add = json.loads(Path("tests/scripted/vector_add.json").read_text())["replies"]
scenarios = {
    "autonomous": json.loads(Path("tests/scripted/matmul.json").read_text())["replies"],
    "explicit": json.loads(Path("tests/scripted/vector_add-explicit.json").read_text())["replies"],
    "config-search": list(SCRIPT),
    "llm-failed": [{"status": 500, "message": "scripted outage"}] * 3 + vector_add,
    "llm-reply": ["no JSON here, sorry"] * 3 + vector_add,
}
for name, replies in scenarios.items():
    (out / f"{name}.json").write_text(json.dumps({"replies": replies}))
PYEOF

scenario_args() {
  case $1 in
    autonomous) echo "examples/matmul.cu --strategy autonomous --sim-cache sessions/caches" ;;
    explicit) echo "examples/vector_add.cu --strategy explicit --steps tests/scripted/vector_add-steps.toml --sim-cache sessions/caches" ;;
    config-search) echo "benchmarks/spaces/matmul_tiled.cu --strategy config-search --rounds 5 --batch-size 6" ;;
    llm-failed|llm-reply) echo "examples/vector_add.cu --strategy autonomous --sim-cache sessions/caches --llm-timeout 5" ;;
  esac
}

# the open gate (kind, key and what `run --auto` would answer) or, once none is open, the session's
# state, read from the store
where() {
  "$PY" - "$1" <<'PYEOF'
import json, sqlite3, sys
from kt_tui.engine.gates import gate_from
try:
    db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=1)
    gate = db.execute("SELECT kind, key, title, body FROM gates WHERE state = 'pending' ORDER BY rowid DESC LIMIT 1").fetchone()
    state = db.execute("SELECT state FROM sessions ORDER BY rowid DESC LIMIT 1").fetchone()
    if gate:
        auto = gate_from(gate[0], gate[1], gate[2], json.loads(gate[3] or "{}")).auto()[0]
        print(f"gate {gate[0]} {gate[1]} {auto}")
    else:
        print(f"state {state[0] if state else 'none'}")
except sqlite3.Error:
    print("state none")
PYEOF
}

walk() {  # walk SIZE SCENARIO
  local size=$1 name=$2 w=${1%x*} h=${1#*x}
  local dir="$OUT/$size/$name" db="$WORK/$size-$name.db" tmux="ktwalk-$$-$name-$size"
  mkdir -p "$dir" && rm -f "$db"
  tmux new-session -d -s "$tmux" -x "$w" -y "$h" \
    "cd '$ROOT' && KT_TUI_DB='$db' KT_TUI_CONFIG_DIR='$WORK/config' KT_TUI_UNDO_S=0 $PY scripts/scripted_session.py \
     '$OUT/replies/$name.json' $(scenario_args "$name") --backend sim; echo \"exit status \$?\"; sleep 600"
  local n=0 last="" waited=0 now retried=""
  while :; do
    now=$(where "$db")
    if [[ $now == gate* && $now != "$last" ]]; then
      sleep 1.5  # the screen shows the gate
      n=$((n + 1)); set -- $now
      tmux capture-pane -p -t "$tmux" > "$dir/$(printf %02d "$n")-$2.txt"
      case $4 in approve) key=s ;; skip) key=k ;; retry) key=t ;; *) key=x ;; esac
      if [[ $2 == llm_* && -z $retried ]]; then key=t retried=1; fi  # the scripted failure, then a retry
      tmux send-keys -t "$tmux" "$key"
      last=$now waited=0
    elif [[ $now == state* && $now != "state running" && $now != "state none" && $n -gt 0 ]]; then
      sleep 1.5
      tmux capture-pane -p -t "$tmux" > "$dir/$(printf %02d $((n + 1)))-end.txt"
      tmux send-keys -t "$tmux" q
      sleep 1
      tmux capture-pane -p -t "$tmux" > "$dir/$(printf %02d $((n + 2)))-after-q.txt"
      break
    fi
    sleep 0.5; waited=$((waited + 1))
    if (( waited > 360 )); then
      tmux capture-pane -p -t "$tmux" > "$dir/stuck.txt"; echo "ux_walk.sh: $name at $size stuck ($now)" >&2; break
    fi
  done
  tmux kill-session -t "$tmux" 2>/dev/null || true
  echo "$size $name: $n gates -> $dir"
}

for size in ${SIZES:-80x24 200x50}; do
  for name in ${SCENARIOS:-autonomous explicit config-search llm-failed llm-reply}; do
    walk "$size" "$name"
  done
done
echo "kinds seen:"; ls "$OUT"/*/*/ | sed -n 's/^[0-9]*-\(.*\)\.txt$/\1/p' | sort | uniq -c
