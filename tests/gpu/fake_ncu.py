#!/usr/bin/env python3
"""A stand-in for Nsight Compute's `ncu` in tests without a GPU (KT_TUI_NCU points at it). Profiling:
writes the report file it was asked for and says the kernel ran, without running it; `--import`: prints
the pages recorded on an NVIDIA H100 80GB HBM3 on 2026-12-06 (tests/fixtures/h100-2026-12-06).
FAKE_NCU_MODE=denied prints ncu's ERR_NVGPUCTRPERM message; =hang sleeps; =log appends each call
to the file FAKE_NCU_LOG."""

import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "h100-2026-12-06"
args = sys.argv[1:]
mode = os.environ.get("FAKE_NCU_MODE", "")
if os.environ.get("FAKE_NCU_LOG"):
    with open(os.environ["FAKE_NCU_LOG"], "a") as f:
        f.write(" ".join(args) + "\n")
if "--import" in args:
    page = args[args.index("--page") + 1]
    sys.stdout.write((HERE / f"ncu-vadd-{page}.csv").read_text())
    sys.exit(0)
if mode == "denied":
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters")
    sys.exit(1)
if mode == "hang":
    time.sleep(60)
Path(args[args.index("--export") + 1] + ".ncu-rep").write_bytes(b"report")
print("==PROF== Connected to process 1")
print("kt-tui: the profiled kernel ran with {}")
