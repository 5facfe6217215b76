#!/usr/bin/env bash
# Session 6, call B (2-GPU host, after the two Ray-wheel calls): issue 26's whole CLI sessions with pycuda
# (batched nvcc compiles, compiles kept across a worker's jobs), --gpus 1 / --gpus 2 / --ray two-node.
set -u
SKIP_CUPY=1 BACKENDS=pycuda MULTI_S=${MULTI_S:-420} bash scripts/gpu_multi.sh
