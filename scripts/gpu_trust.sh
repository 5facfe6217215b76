#!/usr/bin/env bash
# Issue 21 on a GPU, in one call (device tool):
#   source .gpubox/setup.sh && bash scripts/gpu_trust.sh
# carry: .gpubox and .ktcheckout (a kernel_tuner checkout's examples/, read at benchmark time; the
# repository keeps no copy). Results in $OUT (at most 8 files). DRAFTS / IMPORTS: names to run.
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/trust.db KT_TUI_GPU_REPORT=$OUT/gpu-report.txt
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .ktcheckout/COMMIT; which compute-sanitizer; } > $OUT/gpu.txt
t0=$SECONDS
timeout ${TESTS_S:-170} python -m pytest -m gpu tests -v -rfE --timeout ${TEST_TIMEOUT:-100} -p no:cacheprovider > $OUT/pytest-gpu.txt 2>&1
echo "pytest rc=$? $((SECONDS - t0)) s" >> $OUT/gpu.txt; t0=$SECONDS
timeout ${DRAFTS_S:-230} python benchmarks/drafts.py --gpu --budget $(( ${DRAFTS_S:-230} - 40 )) \
  --json $OUT/drafts-gpu.json ${DRAFTS_ARGS:-} ${DRAFTS:-} > $OUT/drafts-gpu.txt 2>&1
echo "drafts rc=$? $((SECONDS - t0)) s" >> $OUT/gpu.txt; t0=$SECONDS
timeout ${IMPORTS_S:-170} python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 20 --timeout ${IMPORT_TIMEOUT:-100} \
  --budget $(( ${IMPORTS_S:-170} - 40 )) --out $OUT/imports-gpu.txt ${IMPORTS:-} > $OUT/imports-gpu.log 2>&1
echo "imports rc=$? $((SECONDS - t0)) s" >> $OUT/gpu.txt
for f in $OUT/pytest-gpu.txt $OUT/drafts-gpu.txt $OUT/imports-gpu.log; do tail -n 4 $f; done; cat $OUT/gpu.txt
