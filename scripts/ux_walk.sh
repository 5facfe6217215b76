#!/usr/bin/env bash
# Walk scripted sessions through every kind of gate in tmux, at 80x24 and at 200x50, and keep each
# screen as text (tmux capture-pane). The LLM is the test suite's scripted server (tests/llm_server.py,
# replies written by us), the numbers are replays of recorded caches (--backend sim).
#
# usage: scripts/ux_walk.sh [OUT_DIR]        (default: ux-walk/; needs tmux)
#        SIZES="80x24" SCENARIOS="explicit" SETTLE=0.5 scripts/ux_walk.sh DIR   (one walk, as the test does)
# OUT_DIR/WxH/SCENARIO/NN-KIND.txt is the screen at each gate; NN-end.txt the screen at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(realpath -m "${1:-ux-walk}")
PY=${PYTHON:-python3}
SETTLE=${SETTLE:-1.5}  # seconds the screen gets to show a gate before it is kept
PATIENCE=${PATIENCE:-360}  # polls (0.5 s each) without a new gate before a walk counts as stuck
command -v tmux >/dev/null || { echo "ux_walk.sh: tmux is needed" >&2; exit 2; }
mkdir -p "$OUT/replies"
WORK=$(mktemp -d)  # the sessions' databases and config dir: thrown away at the end
trap 'rm -rf "$WORK"' EXIT
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

"$PY" "$ROOT/scripts/ux_walk.py" replies "$OUT/replies"  # the scripted replies of each scenario

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
where() { "$PY" "$ROOT/scripts/ux_walk.py" where "$1"; }

walk() {  # walk SIZE SCENARIO
  local size=$1 name=$2 w=${1%x*} h=${1#*x}
  local dir="$OUT/$size/$name" db="$WORK/$size-$name.db" tmux="ktwalk-$$-$name-$size"
  mkdir -p "$dir" && rm -f "$db"
  tmux new-session -d -s "$tmux" -x "$w" -y "$h" \
    "cd '$ROOT' && KT_TUI_DB='$db' KT_TUI_CONFIG_DIR='$WORK/config' KT_TUI_DATA_DIR='$WORK/data' KT_TUI_UNDO_S=0 $PY scripts/scripted_session.py \
     '$OUT/replies/$name.json' $(scenario_args "$name") --backend sim; echo \"exit status \$?\"; sleep 600"
  local n=0 last="" waited=0 now retried=""
  while :; do
    now=$(where "$db")
    if [[ $now == gate* && $now != "$last" ]]; then
      sleep "$SETTLE"  # the screen shows the gate
      n=$((n + 1)); set -- $now
      tmux capture-pane -p -t "$tmux" > "$dir/$(printf %02d "$n")-$2.txt"
      case $4 in approve) key=s ;; skip) key=n ;; retry) key=t ;; *) key=x ;; esac
      if [[ $2 == llm_* && -z $retried ]]; then key=t retried=1; fi  # the scripted failure, then a retry
      tmux send-keys -t "$tmux" "$key"
      last=$now waited=0
    elif [[ $now == state* && $now != "state running" && $now != "state none" && $n -gt 0 ]]; then
      sleep "$SETTLE"
      tmux capture-pane -p -t "$tmux" > "$dir/$(printf %02d $((n + 1)))-end.txt"
      tmux send-keys -t "$tmux" q
      sleep 1
      tmux capture-pane -p -t "$tmux" > "$dir/$(printf %02d $((n + 2)))-after-q.txt"
      break
    fi
    sleep 0.5; waited=$((waited + 1))
    if (( waited > PATIENCE )); then
      tmux capture-pane -p -t "$tmux" > "$dir/stuck.txt"; echo "ux_walk.sh: $name at $size stuck ($now)" >&2
      STUCK=$((STUCK + 1)); break
    fi
  done
  tmux kill-session -t "$tmux" 2>/dev/null || true
  echo "$size $name: $n gates -> $dir"
}

STUCK=0
for size in ${SIZES:-80x24 200x50}; do
  for name in ${SCENARIOS:-autonomous explicit config-search llm-failed llm-reply}; do
    walk "$size" "$name"
  done
done
echo "kinds seen:"; ls "$OUT"/*/*/ | sed -n 's/^[0-9]*-\(.*\)\.txt$/\1/p' | sort | uniq -c
(( STUCK == 0 )) || { echo "ux_walk.sh: $STUCK walk(s) stuck" >&2; exit 1; }
