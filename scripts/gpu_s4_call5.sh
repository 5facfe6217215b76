#!/usr/bin/env bash
# Two GPUs of one host (session 4, call 5, after the two Ray-wheel calls): the reduction import again
# (a verify function of the script's no longer refused), then whole CLI sessions on one, two and a
# two-node Ray cluster, with the parked actor thread (no worker deaths expected).
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data
mkdir -p /tmp/kt-data
t0=$SECONDS
timeout 110 python benchmarks/imports.py --kt .ktcheckout --gpu --max-configs 10 --timeout 100 \
  --out $OUT/imports-reduction.txt cuda/reduction > /dev/null 2>&1
echo "reduction import rc=$? $((SECONDS - t0)) s" > $OUT/times.txt
SKIP_CUPY=1 MULTI_S=${MULTI_S:-380} bash scripts/gpu_multi.sh > /dev/null 2>&1
rm -f $OUT/cupy.txt
grep "^| \|silently" $OUT/imports-reduction.txt; cat $OUT/multigpu-cli.txt | tail -12; head -3 $OUT/ray-deaths.txt; cat $OUT/times.txt
