#!/usr/bin/env bash
# Session 7, call E (2-GPU host): nvcuda sessions with bytecode compiled (as installed), the compile
# server's processes started with it and the check's test started at the backend's pick; then where
# an LLM session's time goes on one GPU (py-spy over the app and its worker, and its trace).
set -u
python -m compileall -q -j 0 /tmp/site kt_tui > /dev/null 2>&1  # bytecode, as an installed kt-tui has it
export KT_TUI_DATA_DIR=/tmp/kt-data; mkdir -p /tmp/kt-data
TAG=s7e BACKENDS=nvcuda MULTI_S=200 bash scripts/gpu_s7_b.sh > /dev/null 2>&1
rm -f $OUT/traces.tgz $OUT/pool-broke.txt
command -v py-spy > /dev/null || python -m pip install -q --no-index --target /tmp/pyspy .gpubox/wheels/py_spy-*.whl; export PATH=/tmp/pyspy/bin:$PATH
mkdir -p /tmp/traces/prof
KT_TUI_TRACE=/tmp/traces/prof/llm.trace KT_TUI_DB=/tmp/traces/prof/llm.sqlite timeout 90 py-spy record --subprocesses --rate 200 --format raw \
  -o /tmp/traces/prof/pyspy-llm-gpus1.txt -- python scripts/scripted_session.py tests/scripted/matmul.json run examples/matmul.cu \
  --auto --json --backend nvcuda --strategy autonomous --gpus 1 > /dev/null 2> /tmp/traces/prof/llm-stderr.txt
tar czf $OUT/traces.tgz -C /tmp traces
cat $OUT/multigpu-cli-nvcuda.txt; tail -3 /tmp/traces/prof/llm-stderr.txt; ls -la $OUT
