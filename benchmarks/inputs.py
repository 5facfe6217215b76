"""What making a kernel's inputs costs (CPU only): kt-tui's make_args at the spec's sizes against the
way it drew them before (float64 values converted, one thread per random array) and against plain
numpy drawing the same kinds of values on one thread in the array's type. Best of --repeat, wall and
CPU seconds.

usage: python benchmarks/inputs.py [--kernels big] [--repeat 3] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.short import kernel_paths  # noqa: E402
from kt_tui.kernel.expr import evaluate  # noqa: E402
from kt_tui.kernel.inputs import GENERATED, make_arg, make_args  # noqa: E402
from kt_tui.kernel.spec import load_spec, random_bounds  # noqa: E402


def drawn_before(arg, sizes):
    """One random array as kt-tui drew it before: float64 values, then converted."""
    n = int(evaluate(arg.size, sizes)) * arg.lanes
    dtype, rng = np.dtype(arg.dtype), np.random.default_rng(arg.seed)
    if np.issubdtype(dtype, np.floating):
        if arg.init == "normal" or (arg.init == "random" and arg.low is None and arg.high is None):
            return rng.standard_normal(n).astype(dtype)
        return rng.uniform(*random_bounds(arg, sizes), n).astype(dtype)
    return rng.integers(*random_bounds(arg, sizes), n).astype(dtype)


def before(spec):
    arrays = [a for a in spec.args if a.is_array and a.init in GENERATED]
    with ThreadPoolExecutor(max(1, min(len(arrays), 8))) as pool:
        list(pool.map(lambda a: drawn_before(a, spec.sizes), arrays))
    for a in spec.args:  # the other arguments are made as they are now (poison, zeros, scalars)
        if a.init not in GENERATED or not a.is_array:
            make_arg(a, dict(spec.sizes), spec)


def plain_numpy(spec):
    for a in spec.args:
        if a.is_array and a.init in GENERATED:
            n, dtype = int(evaluate(a.size, spec.sizes)) * a.lanes, np.dtype(a.dtype)
            rng = np.random.default_rng(a.seed)
            if not np.issubdtype(dtype, np.floating):
                rng.integers(*random_bounds(a, spec.sizes), n, dtype=dtype)
            elif a.init == "normal" or (a.init == "random" and a.low is None and a.high is None):
                rng.standard_normal(n, dtype=dtype)
            else:
                rng.random(n, dtype=dtype)


def best(f, repeat):
    wall, cpu = float("inf"), float("inf")
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        f()
        wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="big")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    lines = [
        f"# inputs at the spec's sizes, best of {a.repeat}; {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"{'kernel':16} {'MB':>5}  {'make_args wall/cpu s':>20}  {'before wall/cpu s':>18}  {'numpy, random arrays only, 1 thread':>35}",
    ]
    print(lines[0], lines[1], sep="\n", flush=True)
    for path in kernel_paths(a.kernels):
        spec = load_spec(ROOT / f"{path}.toml")
        mb = sum(x.nbytes for x in make_args(spec) if isinstance(x, np.ndarray)) / 2**20
        now, old, plain = (best(partial(f, spec), a.repeat) for f in (make_args, before, plain_numpy))
        line = (
            f"{Path(path).stem:16} {mb:5.0f}  {now[0]:9.2f} /{now[1]:7.2f}   {old[0]:8.2f} /{old[1]:7.2f}   "
            f"{plain[0]:24.2f} /{plain[1]:7.2f}"
        )
        lines.append(line)
        print(line, flush=True)
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        (Path(a.out) / "inputs.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
