#!/usr/bin/env bash
# Session 7, call G: why `--ray local` (tests/gpu/test_scale_session.py) printed no JSON on the 2-GPU host.
set -u
python -m compileall -q -j 0 /tmp/site kt_tui > /dev/null 2>&1
d=$(mktemp -d)
env -u RAY_AUTH_MODE KT_TUI_DB=$d/db KT_TUI_DATA_DIR=$d/data KT_TUI_CONFIG_DIR=$d/cfg timeout 200 python -m kt_tui run examples/matmul.cu \
  --auto --json --backend sim --ray local --gpus 2 --search brute_force > $d/out.txt 2> $d/err.txt; echo "rc $?"
head -c 400 $d/out.txt; echo; tail -30 $d/err.txt; tail -30 $d/data/logs/gpu-worker.log 2>/dev/null
timeout 120 python -m pytest -q -p no:cacheprovider tests/gpu/test_scale_session.py 2>&1 | tail -3
