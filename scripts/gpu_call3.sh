#!/usr/bin/env bash
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/trust.db KT_TUI_GPU_REPORT=$OUT/gpu-report.txt
mkdir -p /tmp/kt-data
t0=$SECONDS
timeout 170 python -m pytest -m gpu tests/gpu/test_gpu_checks.py tests/gpu/test_gpu.py tests/importer/test_import_checks.py tests/gpu/test_supervise.py -v -rfE -p no:cacheprovider > $OUT/pytest-gpu.txt 2>&1
echo "pytest rc=$? $((SECONDS - t0)) s" >> $OUT/gpu.txt; t0=$SECONDS
timeout 110 python -m pytest -m gpu "tests/gpu/test_faults.py::test_a_version_wrong_only_at_a_ragged_size_ends_wrong_result_with_the_index" -x -s -v -p no:cacheprovider -o faulthandler_timeout=75 > $OUT/ragged.txt 2>&1
echo "ragged rc=$? $((SECONDS - t0)) s" >> $OUT/gpu.txt; t0=$SECONDS
timeout 280 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 20 --timeout 50 --budget 220 --out $OUT/imports-gpu.txt cuda/convolution cuda/convolution_correct cuda/sepconv cuda/expdist cuda/reduction cuda/matmul cuda/stencil cuda/zeromeanfilter cuda/sepconv_parallel > $OUT/imports-gpu.log 2>&1
echo "imports rc=$? $((SECONDS - t0)) s" >> $OUT/gpu.txt
tail -n 5 $OUT/pytest-gpu.txt; tail -n 5 $OUT/ragged.txt; tail -n 15 $OUT/imports-gpu.txt; cat $OUT/gpu.txt
