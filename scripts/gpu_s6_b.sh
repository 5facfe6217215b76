#!/usr/bin/env bash
# Session 6, call B (2-GPU host, after the two Ray-wheel calls): issue 26's whole CLI sessions with pycuda
# (batched nvcc compiles, compiles kept across a worker's jobs), --gpus 1 / --gpus 2 / --ray two-node.
set -u
SKIP_CUPY=1 BACKENDS=pycuda MULTI_S=${MULTI_S:-420} bash scripts/gpu_multi.sh
# where a one-GPU sweep's time goes: py-spy over the app and its GPU worker (collapsed stacks)
export CUDA_VISIBLE_DEVICES=0 KT_TUI_DATA_DIR=/tmp/kt-data
command -v py-spy > /dev/null || python -m pip install -q --no-index --target /tmp/pyspy .gpubox/wheels/py_spy-*.whl; export PATH=/tmp/pyspy/bin:$PATH
timeout 90 py-spy record --subprocesses --rate 200 --format raw -o $OUT/pyspy-300-gpus1.txt -- \
  python -m kt_tui run benchmarks/spaces/matmul_tiled.cu --auto --json --backend pycuda --search brute_force \
  --max-configs 300 > /dev/null 2> $OUT/pyspy-stderr.txt
tail -3 $OUT/pyspy-stderr.txt; ls -la $OUT
