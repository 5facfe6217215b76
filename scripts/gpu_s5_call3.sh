#!/usr/bin/env bash
# Session 5, call 3 (two GPUs): why `--backend nvcuda --gpus 2` did not end (py-spy dump of every
# process at 40 s), then the nvcuda multi-GPU sessions if it did.
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/d.db KT_TUI_TRACE=/tmp/tr RAY_AUTH_MODE=disabled
mkdir -p /tmp/kt-data
python -m kt_tui run examples/vector_add.cu --auto --json --backend nvcuda --max-configs 1 > /dev/null 2>&1
rm -f /tmp/tr
timeout 70 python -m kt_tui run benchmarks/spaces/matmul_tiled.cu --auto --json --backend nvcuda --search brute_force \
  --max-configs 300 --gpus 2 > $OUT/run.json 2> $OUT/run.err &
runner=$!
for i in $(seq 40); do sleep 1; kill -0 $runner 2>/dev/null || break; done
if kill -0 $runner 2>/dev/null; then
  echo "still running after 40 s: dumping" | tee $OUT/dump.txt
  for p in $(pgrep -f "kt_tui|multiprocessing"); do echo "== $p $(tr '\0' ' ' < /proc/$p/cmdline | cut -c1-150)"; py-spy dump --pid $p 2>&1 | head -60; done >> $OUT/dump.txt
fi
wait $runner; echo "rc=$?" >> $OUT/run.err
cp /tmp/tr $OUT/trace.txt
tail -5 $OUT/run.err; grep -c . $OUT/trace.txt; tail -20 $OUT/dump.txt 2>/dev/null
tar czf $OUT/logs.tgz -C /tmp kt-data/logs 2>/dev/null
if ! grep -q "still running" $OUT/dump.txt 2>/dev/null; then
  unset KT_TUI_DB KT_TUI_TRACE
  timeout 300 python benchmarks/multigpu_cli.py --configs 300,all --gpus 2 --timeout 100 --backend nvcuda \
    --llm-session tests/scripted/matmul.json:autonomous:examples/matmul.cu \
    --out $OUT/multigpu-cli-nvcuda.json 2>&1 | tee $OUT/multigpu-cli-nvcuda.txt
fi
