#!/usr/bin/env python3
"""A stand-in for Nsight Compute's `ncu` in tests without a GPU (KT_TUI_NCU points at it). Profiling:
prints the child's time stamps as it would (without running it: the steps a tenth of a second apart)
and then the page recorded on an NVIDIA H100 80GB HBM3 on 2026-12-06
(tests/fixtures/h100-2026-12-06/ncu-vadd-page.csv). FAKE_NCU_MODE=denied prints ncu's
ERR_NVGPUCTRPERM message; =hang sleeps; FAKE_NCU_LOG=FILE appends each call to FILE."""

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
if mode == "denied":
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters")
    sys.exit(1)
if mode == "hang":
    time.sleep(60)
for step in ("up", "imported", "inputs", "ran"):
    time.sleep(0.1)
    print(f"kt-tui: at {time.monotonic():.3f} {step}", flush=True)
sys.stdout.write((HERE / "ncu-vadd-page.csv").read_text())
