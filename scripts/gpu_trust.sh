#!/usr/bin/env bash
# Issue 21 on a GPU, in one call (device tool):
#   source .gpubox/setup.sh && bash scripts/gpu_trust.sh
# carry: .gpubox and .ktcheckout (a kernel_tuner checkout's examples/, read at benchmark time; the
# repository keeps no copy). Results in $OUT (at most 8 files).
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/trust.db
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .ktcheckout/COMMIT; } > $OUT/gpu.txt
timeout ${DRAFTS_S:-200} python benchmarks/drafts.py --gpu --hand --budget $(( ${DRAFTS_S:-200} - 20 )) \
  --json $OUT/drafts-gpu.json > $OUT/drafts-gpu.txt 2>&1
echo "drafts rc=$?" >> $OUT/gpu.txt
timeout ${IMPORTS_S:-200} python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 30 \
  --budget $(( ${IMPORTS_S:-200} - 20 )) --out $OUT/imports-gpu.json > $OUT/imports-gpu.txt 2>&1
echo "imports rc=$?" >> $OUT/gpu.txt
timeout ${TESTS_S:-150} python -m pytest -m gpu tests -q -p no:cacheprovider -x > $OUT/pytest-gpu.txt 2>&1
echo "pytest rc=$?" >> $OUT/gpu.txt
tail -3 $OUT/*.txt
