#!/usr/bin/env bash
# Session 8, call A (2-GPU host): where pycuda's compile supply goes on this host (benchmarks/nvcc_supply.py,
# nvcc's phases), where the check's test spends its seconds (marks of its children), and nvcuda with a
# deeper compile window (depth x4, patched in a copy) beside the code as it is.
set -u
python -m compileall -q -j 0 /tmp/site kt_tui > /dev/null 2>&1  # bytecode, as an installed kt-tui has it
S=$OUT/a.txt
{ lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz|L3"; nproc; nvidia-smi --query-gpu=index,name --format=csv,noheader; date -u; } > $S 2>&1
cat > /tmp/phase.py <<'PY'
import subprocess, sys, tempfile, os
src = open("benchmarks/spaces/matmul_tiled.cu").read()
for c in ["16,16,1,1,16", "16,16,8,8,32"]:
    bx, by, tx, ty, tk = c.split(",")
    d = tempfile.mkdtemp()
    pre = f"#define block_size_x {bx}\n#define block_size_y {by}\n#define tile_size_x {tx}\n#define tile_size_y {ty}\n#define tile_k {tk}\n"
    open(f"{d}/k.cu", "w").write('extern "C" {\n' + pre + src + "\n}\n")
    subprocess.run(["nvcc", "--cubin", "-rdc=true", "-arch=sm_90", "k.cu", "--time", "t.csv"], cwd=d, check=True)
    print(c, " ".join(f"{l.split(',')[1].strip()}={float(l.split(',')[6]):.0f}ms" for l in open(f"{d}/t.csv").read().splitlines()[1:]))
PY
{ echo "== nvcc phases (one configuration alone)"; python /tmp/phase.py; } >> $S 2>&1
{ echo "== nvcc supply"; timeout 150 python benchmarks/nvcc_supply.py --configs 256 --threads 16,31 --batch 1,4,8,16 --rate 120;
  timeout 60 python benchmarks/nvcc_supply.py --configs 767 --threads 31 --batch 8 --rate 120 | tail -1; } >> $S 2>&1
KT_TUI_BENCH_TRACES=/tmp/tr SKIP_CUPY=1 BACKENDS="nvcuda pycuda" CONFIGS=300,all MULTI_S=170 bash scripts/gpu_multi.sh > /dev/null 2>&1
{ echo "== sessions as they are"; cat $OUT/multigpu-cli-nvcuda.txt $OUT/multigpu-cli-pycuda.txt; } >> $S
rm -rf /tmp/deep && mkdir /tmp/deep && cp -r kt_tui benchmarks scripts examples tests /tmp/deep/ 2>/dev/null
sed -i 's/math.ceil(2 \* self.size/math.ceil(8 * self.size/' /tmp/deep/kt_tui/gpu/worker/sharedpool.py
grep -c "ceil(8" /tmp/deep/kt_tui/gpu/worker/sharedpool.py >> $S
(cd /tmp/deep && python -m compileall -q -j 0 kt_tui > /dev/null 2>&1; mkdir -p /tmp/outd
 OUT=/tmp/outd KT_TUI_BENCH_TRACES=/tmp/trd SKIP_CUPY=1 BACKENDS=nvcuda CONFIGS=300,all MULTI_S=120 bash scripts/gpu_multi.sh > /dev/null 2>&1)
{ echo "== nvcuda, depth x4"; cat /tmp/outd/multigpu-cli-nvcuda.txt; } >> $S
rm -f $OUT/gpus.txt $OUT/logs.tgz $OUT/cupy.txt $OUT/cluster.txt $OUT/ray-deaths.txt
tar czf $OUT/traces.tgz -C /tmp tr trd 2>/dev/null
cat $S
