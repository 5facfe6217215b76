#!/usr/bin/env bash
# Session 5, call 1 (one GPU): where a configuration's compile and load go per compiler path
# (benchmarks/compilers.py), what the first result of saxpy (big) and reduction spends (cProfile of
# the baseline job + trace), and a 300-configuration matmul_tiled session with pycuda and nvcuda.
set -u
export KT_TUI_DATA_DIR=/tmp/kt-data
mkdir -p /tmp/kt-data /tmp/prof
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; nproc; which cuobjdump; } > $OUT/env.txt 2>&1
timeout 200 python benchmarks/compilers.py --configs 96 2>&1 | tee $OUT/compilers.txt
python -m kt_tui run examples/vector_add.cu --auto --json --backend pycuda --max-configs 2 > /dev/null 2>&1  # probe remembered
for k in benchmarks/big/saxpy.cu examples/reduction.cu; do
  n=$(basename $k .cu); rm -rf /tmp/prof/*; rm -f /tmp/tr
  KT_TUI_DB=/tmp/kt-data/$n.db KT_TUI_PROFILE=/tmp/prof KT_TUI_TRACE=/tmp/tr timeout 90 python -m kt_tui run $k --auto --json \
    --backend pycuda --search brute_force --max-configs 3 > /dev/null 2>$OUT/$n.err
  python - "$n" <<'PY' >> $OUT/first.txt 2>&1
import glob, pstats, sys
from kt_tui.gpu.timeline import read
m = read("/tmp/tr"); t0 = m[0][0] if m else 0
print(f"== {sys.argv[1]}")
for t, pid, s in m[:40]:
    print(f"  {t - t0:7.3f} {pid} {s}")
for f in sorted(glob.glob("/tmp/prof/*baseline*"))[:1]:
    pstats.Stats(f).sort_stats("cumulative").print_stats(28)
PY
done
cat $OUT/first.txt | grep -v "^$" | head -150
for b in pycuda nvcuda; do
  rm -f /tmp/tr
  s=$SECONDS
  KT_TUI_DB=/tmp/kt-data/mm-$b.db KT_TUI_TRACE=/tmp/tr timeout 120 python -m kt_tui run benchmarks/spaces/matmul_tiled.cu --auto --json \
    --backend $b --search brute_force --max-configs 300 --gpus 1 > /dev/null 2>$OUT/mm-$b.err
  echo "matmul 300 $b rc=$? wall $((SECONDS - s)) s: $(grep 'compile waits' /tmp/tr | cut -d' ' -f3-)" | tee -a $OUT/env.txt
  grep "compiled ahead" $OUT/mm-$b.err | tail -2 | tee -a $OUT/env.txt
done
