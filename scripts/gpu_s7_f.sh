#!/usr/bin/env bash
# Session 7, call F (2-GPU host, after the two Ray-wheel calls): issue 26's whole CLI sessions on the
# final code, nvcuda and pycuda, --gpus 1 / --gpus 2 / --ray on a two-node cluster (one GPU a node),
# each session's whole trace kept; then the GPU tests of the compile paths on this host.
set -u
python -m compileall -q -j 0 /tmp/site kt_tui > /dev/null 2>&1  # bytecode, as an installed kt-tui has it
KT_TUI_BENCH_TRACES=/tmp/kt-data/traces SKIP_CUPY=1 BACKENDS="nvcuda pycuda" CONFIGS=300,all MULTI_S=240 bash scripts/gpu_multi.sh > /dev/null 2>&1
rm -f $OUT/gpus.txt
timeout 200 python -m pytest -q -p no:cacheprovider tests/gpu/test_compile_pools.py tests/gpu/test_compile_batches.py \
  tests/gpu/test_compile_ahead.py tests/gpu/test_scale_session.py tests/gpu/test_dealing.py tests/gpu/test_gpu.py > $OUT/gpu-tests.txt 2>&1
cat $OUT/cluster.txt $OUT/multigpu-cli-nvcuda.txt $OUT/multigpu-cli-pycuda.txt $OUT/ray-deaths.txt; tail -5 $OUT/gpu-tests.txt; ls $OUT
