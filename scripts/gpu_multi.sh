#!/usr/bin/env bash
# Issue 26 on a 2-GPU host, in one call (device tool, after the two Ray-wheel calls of ../shared/gpu-box):
#   source .gpubox/setup.sh && bash scripts/gpu_multi.sh
# cupy on this host, then whole CLI sessions with --gpus 1 / --gpus 2 / --ray on a two-node cluster
# (one node per GPU), results in $OUT.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export KT_TUI_DATA_DIR=/tmp/kt-data KT_TUI_DB=/tmp/kt-data/cupy.db RAY_AUTH_MODE=disabled
mkdir -p /tmp/kt-data
source scripts/gpu_bytecode.sh  # as installed: the box keeps no bytecode, for its own packages either
nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv > $OUT/gpus.txt; date -u >> $OUT/gpus.txt
nproc >> $OUT/gpus.txt
[ -n "${SKIP_CUPY:-}" ] || {
  echo "== cupy on this host"
  timeout 60 python -m kt_tui run examples/vector_add.cu --auto --json --backend cupy 2>&1 | tail -4
  echo "== pytest gpu (scale, cupy)"
  timeout 75 python -m pytest -q -p no:cacheprovider -m gpu tests/gpu/test_gpu.py -k "cupy or backend" 2>&1 | tail -4
} > $OUT/cupy.txt 2>&1
RAYARG=""
python -c "import ray" 2>/dev/null && RAYARG="--ray 127.0.0.1:6390"  # the wheel came over (two calls before this one)
ray() { python -c 'import sys; from ray.scripts.scripts import main; sys.argv[0]="ray"; main()' "$@"; }
[ -z "$RAYARG" ] || {
  echo "== two-node cluster"
  CUDA_VISIBLE_DEVICES=0 ray start --head --port 6390 --num-gpus 1 --include-dashboard=false --disable-usage-stats 2>&1 | tail -3
  CUDA_VISIBLE_DEVICES=1 ray start --address 127.0.0.1:6390 --num-gpus 1 --disable-usage-stats 2>&1 | tail -3
  python -c "import ray; ray.init(address='127.0.0.1:6390', log_to_driver=False); print('nodes', len([n for n in ray.nodes() if n['Alive']]), ray.cluster_resources().get('GPU'))" 2>&1 | tail -1
} > $OUT/cluster.txt 2>&1
for b in ${BACKENDS:-pycuda}; do
  KT_TUI_BENCH_TRACES=${KT_TUI_BENCH_TRACES:+$KT_TUI_BENCH_TRACES/$b} timeout ${MULTI_S:-400} python benchmarks/multigpu_cli.py --configs ${CONFIGS:-300,all} --gpus 2 $RAYARG --timeout 150 \
    --backend $b --llm-session tests/scripted/matmul.json:autonomous:examples/matmul.cu \
    --out $OUT/multigpu-cli-$b-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -o "H[0-9]*" | head -1 | tr A-Z a-z)-$(date -u +%F).json 2>&1 | tee $OUT/multigpu-cli-$b.txt
done
# worker deaths (issue 26): none expected; every actor ends by ray.kill after its job thread ended
[ -z "$RAYARG" ] || { echo "unexpected exits:"; grep -rh "unexpectedly exits\|SYSTEM_ERROR" /tmp/ray/session_latest/logs 2>/dev/null | head -20
  echo "actors ended in order:"; grep -rh "Force kill actor request" /tmp/ray/session_latest/logs 2>/dev/null | wc -l
} > $OUT/ray-deaths.txt
[ -z "$RAYARG" ] || ray stop --force > /dev/null 2>&1
tar czf $OUT/logs.tgz -C /tmp kt-data/logs $(cd /tmp && ls -d kt-data/traces 2>/dev/null) $(cd /tmp && ls -d ray/session_latest/logs 2>/dev/null) 2>/dev/null
ls -la $OUT
