#!/usr/bin/env bash
# Session 7, call B (2-GPU host): whole CLI sessions after the compile processes stopped dying with
# the server thread that started them (nvcuda; pycuda with BACKENDS=...), each session's whole trace.
set -u
python -m compileall -q -j 0 /tmp/site kt_tui > /dev/null 2>&1  # bytecode, as an installed kt-tui has it
export KT_TUI_DATA_DIR=/tmp/kt-data; mkdir -p /tmp/kt-data
for b in ${BACKENDS:-nvcuda}; do
  KT_TUI_BENCH_TRACES=/tmp/traces/$b timeout ${MULTI_S:-300} python benchmarks/multigpu_cli.py --configs ${CONFIGS:-300,all} --gpus 2 \
    --timeout 90 --backend $b --llm-session tests/scripted/matmul.json:autonomous:examples/matmul.cu \
    --out $OUT/multigpu-cli-$b-${TAG:-s7b}.json 2>&1 | tee $OUT/multigpu-cli-$b.txt
done
grep -h "compile pool" /tmp/traces/*/*.trace | head -5 > $OUT/pool-broke.txt
tar czf $OUT/traces.tgz -C /tmp traces
ls -la $OUT
