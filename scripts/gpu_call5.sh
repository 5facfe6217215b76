#!/usr/bin/env bash
# after the issue-25 refactor, on one GPU: the GPU tests of the worker path, then kernel_tuner's scripts beside kt-tui's imports
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/trust.db KT_TUI_GPU_REPORT=$OUT/gpu-report.txt
mkdir -p /tmp/kt-data
t0=$SECONDS
timeout 250 python -m pytest -m gpu tests/gpu/test_gpu.py tests/gpu/test_gpu_checks.py tests/gpu/test_compile_ahead.py tests/gpu/test_supervise.py tests/store/test_records.py "tests/gpu/test_faults.py::test_a_version_wrong_only_at_a_ragged_size_ends_wrong_result_with_the_index" -k "not ui_streams" -v -rfE --timeout 100 -p no:cacheprovider > $OUT/pytest-gpu.txt 2>&1
echo "pytest rc=$? $((SECONDS - t0)) s" >> $OUT/gpu.txt; t0=$SECONDS
timeout 300 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 20 --timeout 45 --budget 250 --out $OUT/imports-gpu.txt cuda/convolution_correct cuda/reduction cuda/stencil cuda/zeromeanfilter cuda/sepconv cuda-c++/vector_add_blocksize cuda/sepconv_parallel cuda/vector_add cuda/convolution > $OUT/imports-gpu.log 2>&1
echo "imports rc=$? $((SECONDS - t0)) s" >> $OUT/gpu.txt
grep -E 'passed|failed' $OUT/pytest-gpu.txt | tail -3; tail -n 14 $OUT/imports-gpu.txt; cat $OUT/gpu.txt
