#!/usr/bin/env python3
"""A stand-in for Nsight Compute's `ncu` in tests without a GPU (KT_TUI_NCU points at it). Profiling:
reads the child's job file (its last argument) and prints the child's lines as the child would
(without running it: each step a tenth of a second after the last), ncu's pass count while each
target runs, and then the page recorded on an NVIDIA H100 80GB HBM3 on 2026-12-06
(tests/fixtures/h100-2026-12-06/ncu-vadd-page.csv) once per target that ran, as result IDs 0, 1,
... under the target's kernel name; each copy's registers per thread is the target's block_size_x / 16, so that a test can tell
whose profile it is. FAKE_NCU_FAIL=NAME=VALUE: the target with that parameter value fails in the
child; FAKE_NCU_MODE=denied prints ncu's ERR_NVGPUCTRPERM message; =hang sleeps; =die ends the
child after its first target (a crash: ncu prints what it profiled); FAKE_NCU_LOG=FILE appends each call to FILE."""

import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "h100-2026-12-06"
args = sys.argv[1:]
mode = os.environ.get("FAKE_NCU_MODE", "")
fail = os.environ.get("FAKE_NCU_FAIL", "")
if os.environ.get("FAKE_NCU_LOG"):
    with open(os.environ["FAKE_NCU_LOG"], "a") as f:
        f.write(" ".join(args) + "\n")
if mode == "denied":
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters")
    sys.exit(1)
if mode == "hang":
    time.sleep(60)
targets = json.loads(Path(args[-1]).read_text())["targets"]


def stamp(step: str, i: int | None = None) -> None:
    time.sleep(0.1)
    print(f"kt-tui: at {time.monotonic():.3f} {step}" + ("" if i is None else f" {i}"), flush=True)


stamp("up")
stamp("imported")
ran = []
for i, target in enumerate(targets):
    params = target["params"]
    if fail in (f"{k}={v}" for k, v in params.items()):
        stamp("failed", i)
        print(f"kt-tui: the profiled kernel failed (target {i}): LaunchError: too many resources requested")
        continue
    stamp("inputs", i)
    print(f'==PROF== Profiling "{target["spec"]["kernel"]}": 0%....50%....100% - 18 passes')
    stamp("ran", i)
    print(f"kt-tui: the profiled kernel ran (target {i}) with {params}", flush=True)
    ran.append(target)
    if mode == "die":
        break
page = (HERE / "ncu-vadd-page.csv").read_text()
head, rows = page[page.index('"ID","') :].split("\n", 1)
print(head)
for k, target in enumerate(ran):
    registers = f'"launch__registers_per_thread","register/thread","{target["params"].get("block_size_x", 256) // 16}"'
    mine = rows.replace('"launch__registers_per_thread","register/thread","16"', registers)
    mine = mine.replace('"127.0.0.1","vadd"', f'"127.0.0.1","{target["spec"]["kernel"]}"')
    sys.stdout.write("\n".join(f'"{k}"' + line[3:] for line in mine.splitlines() if line) + "\n")
sys.exit(139 if mode == "die" else 0)
