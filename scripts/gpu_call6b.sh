#!/usr/bin/env bash
# two H100s of one host (no Ray: its wheel costs two more calls): whole CLI sessions, --gpus 1 against --gpus 2
set -u
export NCCL_NVLS_ENABLE=0 KT_TUI_DATA_DIR=/tmp/kt-data
mkdir -p /tmp/kt-data
{ nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv; date -u; nproc; } > $OUT/gpus.txt
timeout 170 python benchmarks/multigpu_cli.py --configs 300 --gpus 2 --timeout 60 \
  --llm-session tests/scripted/matmul.json:autonomous:examples/matmul.cu \
  --out $OUT/multigpu-cli-h100-$(date -u +%F).json > $OUT/multigpu-cli.txt 2>&1
tail -n 8 $OUT/multigpu-cli.txt; cat $OUT/gpus.txt
