#!/usr/bin/env bash
# One H100 (session 4, call 2): kt-tui against plain kernel_tuner on the eight big-array kernels of
# benchmarks/big (24 item 1's Done-when), whole processes, streamed as each row ends.
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/times.txt
t0=$SECONDS
timeout 575 python benchmarks/overhead.py --gpu --probe-cached --backend pycuda --repeat 1 --kernels big \
  --deadline-s 540 --out $OUT/ov > $OUT/overhead-big.txt 2>&1
echo "overhead rc=$? $((SECONDS - t0)) s" >> $OUT/times.txt
sed -n '/^kernel /,$p' $OUT/overhead-big.txt | head -80; cat $OUT/times.txt
