#!/usr/bin/env bash
# issue 21 on one GPU: every corpus draft through `kt-tui spec --check` (memcheck, strength)
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/trust.db
mkdir -p /tmp/kt-data
t0=$SECONDS
timeout 560 python benchmarks/drafts.py --gpu --budget 530 --json $OUT/drafts-gpu.json > $OUT/drafts-gpu.txt 2>&1
echo "drafts rc=$? $((SECONDS - t0)) s" >> $OUT/gpu.txt
tail -n 8 $OUT/drafts-gpu.txt; cat $OUT/gpu.txt
