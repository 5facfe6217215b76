"""Comparing a big output with its reference on the GPU (kt_tui/gpu/device/compare.py) against today's
way: copy it back and compare on the host (kernel_tuner's np.zeros_like + memcpy_dtoh, then
kt_tui.compare.compare with a read-only reference, as the worker's VerifyObserver does). Needs a GPU.
Prints, per backend, the best of --repeat for an output within tolerance and for one with a wrong
element, the Checker's start (kernel build + reference upload) and an OutputReset's reset, and
checks that both ways give the same verdict.

usage: python benchmarks/device_compare.py [--backend pycuda nvcuda cupy] [--mb 256] [--repeat 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from kt_tui.compare import compare  # noqa: E402
from kt_tui.gpu.device.compare import Checker, OutputReset  # noqa: E402

MODULE = {"pycuda": "pycuda", "nvcuda": "cuda", "cupy": "cupy"}
TOL = (1e-5, 1e-4)  # float32's defaults


def best(fn, repeat: int) -> tuple[float, object]:
    times, got = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        got = fn()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3, got


def run(lang: str, mb: int, repeat: int) -> dict:
    from kernel_tuner.core import DeviceInterface, KernelSource

    dev = DeviceInterface(KernelSource("k", "__global__ void k() {}", lang), quiet=True)
    n = mb * 2**20 // 4
    rng = np.random.default_rng(0)
    ref = rng.standard_normal(n).astype(np.float32)
    ref.flags.writeable = False
    close = (ref + rng.uniform(-1e-6, 1e-6, n).astype(np.float32)).astype(np.float32)
    wrong = close.copy()
    wrong[n // 3] += 1
    (buf,) = dev.ready_argument_list([close])

    def host():
        out = np.zeros_like(close)
        dev.memcpy_dtoh(out, buf)
        return compare("out", ref, out, *TOL)

    t = time.perf_counter()
    checker = Checker(dev, {"out": ref}, {"out": TOL})
    start_ms = (time.perf_counter() - t) * 1e3
    row = {
        "backend": lang,
        "device": dev.name,
        "mb": mb,
        "where": checker.where,
        "checker_start_ms": round(start_ms, 1),
    }
    for label, data in (("close", close), ("wrong", wrong)):
        dev.dev.memcpy_htod(buf, data)
        host_ms, want = best(host, repeat)
        device_ms, got = best(lambda: checker.compare({"out": buf})[0], repeat)
        row[f"{label}_host_ms"], row[f"{label}_device_ms"] = round(host_ms, 2), round(device_ms, 2)
        row[f"{label}_same"] = json.dumps(got) == json.dumps(want)
    checker.close()
    t = time.perf_counter()
    reset = OutputReset(dev, [buf], {"out": 0}, nbytes={"out": close.nbytes})
    row["reset_start_ms"] = round((time.perf_counter() - t) * 1e3, 2)
    row["reset_ms"] = round(best(reset.reset, repeat)[0], 2)
    reset.close()
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", nargs="+", default=["pycuda", "nvcuda", "cupy"], choices=sorted(MODULE))
    ap.add_argument("--mb", type=int, default=256, help="the output's size in MB (float32)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    for lang in args.backend:
        if importlib.util.find_spec(MODULE[lang]) is None:
            print(f"{lang}: {MODULE[lang]} is not installed")
            continue
        row = run(lang, args.mb, args.repeat)
        print(json.dumps(row))
        for label in ("close", "wrong"):
            h, d = row[f"{label}_host_ms"], row[f"{label}_device_ms"]
            print(
                f"  {lang} {label}: host {h:.1f} ms, device {d:.2f} ms ({h / d:.0f}x), same verdict: {row[f'{label}_same']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
