#!/usr/bin/env bash
# Session 7, call A (2-GPU host): where NVRTC's compiles go when two GPUs share the host's compile
# server (issue 26: the late GPU was starved at ~28 compiles/s), and nvcuda sessions of all 767
# configurations with their whole traces; py-spy over the --gpus 2 session's processes.
set -u
python -m compileall -q -j 0 /tmp/site > /dev/null 2>&1
export KT_TUI_DATA_DIR=/tmp/kt-data; mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=index,name,driver_version --format=csv; date -u; nproc; python -c "from cuda.bindings import nvrtc; print('nvrtc', nvrtc.nvrtcVersion())"; nvcc --version | tail -2; } > $OUT/host.txt 2>&1
{
  timeout 150 python benchmarks/compile_server.py --configs 400 --pool 30 --gpus 2 --modes one,own,server
  timeout 60 python benchmarks/compile_server.py --configs 400 --pool 16 --modes own
  timeout 60 python benchmarks/compile_server.py --configs 400 --pool 30 --gpus 1 --modes server
} > $OUT/compile-server.txt 2>&1
cat $OUT/compile-server.txt
KT_TUI_BENCH_TRACES=/tmp/traces timeout 200 python benchmarks/multigpu_cli.py --configs all --gpus 2 --backend nvcuda \
  --timeout 90 --out $OUT/multigpu-nvcuda-s7a.json 2>&1 | tee $OUT/multigpu-nvcuda.txt
command -v py-spy > /dev/null || python -m pip install -q --no-index --target /tmp/pyspy .gpubox/wheels/py_spy-*.whl; export PATH=/tmp/pyspy/bin:$PATH
KT_TUI_TRACE=/tmp/traces/pyspy.trace timeout 90 py-spy record --subprocesses --rate 100 --format raw -o /tmp/traces/pyspy-all-gpus2.txt -- \
  python -m kt_tui run benchmarks/spaces/matmul_tiled.cu --auto --json --backend nvcuda --search brute_force --gpus 2 \
  > /dev/null 2> /tmp/traces/pyspy-stderr.txt
tar czf $OUT/traces.tgz -C /tmp traces
ls -la $OUT
