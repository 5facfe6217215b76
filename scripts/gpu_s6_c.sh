#!/usr/bin/env bash
# Session 6, call C (2-GPU host): issue 26 again after call B's findings: the output comparison
# (compare._Bounds), Python's bytecode compiled once (the GPU box installs its wheels --no-compile and
# PYTHONDONTWRITEBYTECODE made every process compile its imports from source, both tools alike); then
# --gpus 2 with the compile server at 14 processes instead of 30; then nvcuda. No Ray in this call.
set -u
{ echo "== $(date -u)"; env | grep -i "PYTHONDONTWRITE\|PYTHONPATH" ; lscpu | grep -i "^CPU(s)\|Thread(s) per core\|Core(s) per socket\|Socket(s)\|NUMA node[0-9] CPU"
  t0=$SECONDS; python -m compileall -q -j 0 /tmp/site > /dev/null 2>&1; echo "compileall /tmp/site: $((SECONDS - t0)) s rc $?"
} > $OUT/c-machine.txt 2>&1
cat $OUT/c-machine.txt
SKIP_CUPY=1 BACKENDS=pycuda CONFIGS=300,all MULTI_S=250 bash scripts/gpu_multi.sh > /dev/null 2>&1
export KT_TUI_DATA_DIR=/tmp/kt-data
one() {  # $1 label, $2 configs flag, rest: env
  local label=$1 flags=$2; shift 2
  local t0=$(date +%s.%N)
  env "$@" timeout 100 python -m kt_tui run benchmarks/spaces/matmul_tiled.cu --auto --json --backend pycuda \
    --search brute_force $flags > /tmp/$label.json 2> /tmp/$label.err
  local rc=$? t1=$(date +%s.%N)
  python -c "import json,sys; d=json.load(open('/tmp/$label.json')); print(f'$label rc $rc wall {$t1-$t0:.2f} s results', d.get('results'), 'best', d.get('best',{}).get('time_ms'))" >> $OUT/c-pool.txt 2>&1 \
    || echo "$label rc $rc (no JSON)" >> $OUT/c-pool.txt
}
for i in 1 2; do
  one 300-gpus2-w14-$i "--max-configs 300 --gpus 2" KT_TUI_PREFETCH_WORKERS=14
  one 300-gpus2-w30-$i "--max-configs 300 --gpus 2" KT_TUI_PREFETCH_WORKERS=30
done
one all-gpus2-w14 "--gpus 2" KT_TUI_PREFETCH_WORKERS=14
mv $OUT/multigpu-cli-pycuda.txt $OUT/c-multigpu-pycuda.txt
SKIP_CUPY=1 BACKENDS=nvcuda CONFIGS=300,all MULTI_S=150 bash scripts/gpu_multi.sh > /dev/null 2>&1
rm -f $OUT/logs.tgz $OUT/gpus.txt
cat $OUT/c-multigpu-pycuda.txt $OUT/c-pool.txt $OUT/multigpu-cli-nvcuda.txt; ls $OUT
