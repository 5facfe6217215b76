"""How many configurations a second nvcc gives the pycuda backend, by compile threads and batch size.

The first N configurations of a kernel (kernel_tuner's brute-force order) compiled to cubins the way
compile-ahead does for pycuda (gpu/device/compilers.py: pycuda's own `compiler.compile`, relocatable
code, several configurations in one nvcc call where a batch is asked for), on T threads:

- `supply`: every batch asked for at once; configurations a second;
- `at R/s`: taken in order by a consumer that needs one every 1/R s (a GPU that measures R a
  second), asking `window` configurations ahead as a Prefetcher does; the seconds it waited.

No GPU is needed, only pycuda's compiler module and nvcc (--arch names the GPU's). nvcc_scaling.py
measures nvcc alone by concurrent calls; this measures the path compile-ahead takes and what a GPU
waits for on it.

usage: python benchmarks/nvcc_supply.py [KERNEL.cu] [--configs 256] [--threads 16,31] [--batch 1,4,8]
                                        [--rate 120] [--arch 90]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.compile_server import texts  # noqa: E402


def job(named: list[tuple[str, str]], arch: str):
    """The pool's call for these configurations, as Pycuda.job / Pycuda.batch make it."""
    from kt_tui.gpu.device.batching import alias, batch_source, functions
    from kt_tui.gpu.device.compilers import pycuda_batch, pycuda_cubin

    args = {
        "options": ["-Xcompiler=-Wall", "-e", named[0][0], "-rdc=true", "-lcudadevrt"],
        "arch": f"compute_{arch}",
        "code": f"sm_{arch}",
        "cache_dir": False,
        "no_extern_c": False,
    }
    if len(named) == 1:
        return pycuda_cubin, (named[0][1], args, True)
    names = [alias(name, i) for i, (name, _) in enumerate(named)]
    args["options"][2] = ",".join(names)
    source = batch_source(named, functions(named[0][1]))
    return pycuda_batch, (source, dict(args, no_extern_c=True), True, None)


def run(named, arch: str, threads: int, batch: int, rate: float | None, window: int) -> tuple[float, float]:
    """(seconds in all, seconds the consumer waited)."""
    groups = [named[i : i + batch] for i in range(0, len(named), batch)]
    t0 = time.perf_counter()
    waited = 0.0
    with ThreadPoolExecutor(threads) as pool:
        todo, ahead = deque(groups), deque()
        due = t0
        while todo or ahead:
            while todo and (rate is None or sum(len(g) for g, _ in ahead) < window):
                g = todo.popleft()
                fn, args = job(g, arch)
                ahead.append((g, pool.submit(fn, *args)))
            g, fut = ahead.popleft()
            w = time.perf_counter()
            fut.result()
            waited += time.perf_counter() - w
            if rate:
                for _ in g:  # the GPU measures each configuration of the batch
                    due = max(due, time.perf_counter()) + 1 / rate
                    time.sleep(max(0.0, due - time.perf_counter()))
    return time.perf_counter() - t0, waited


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", nargs="?", default=str(ROOT / "benchmarks/spaces/matmul_tiled.cu"))
    ap.add_argument("--configs", type=int, default=256)
    ap.add_argument("--threads", default=f"16,{max(1, len(os.sched_getaffinity(0)) - 1)}")
    ap.add_argument("--batch", default="1,4,8")
    ap.add_argument("--rate", type=float, default=120.0)
    ap.add_argument("--arch", default="90")
    a = ap.parse_args()
    named = texts(a.kernel, a.configs)
    print(f"{len(named)} configurations of {Path(a.kernel).name}, sm_{a.arch}, {os.cpu_count()} cores")
    paced = f"at {a.rate:g}/s: s"
    print(f"{'threads':>7} {'batch':>5} {'supply s':>9} {'configs/s':>9} {paced:>12} {'waited s':>9}")
    for t in [int(x) for x in a.threads.split(",")]:
        for b in [int(x) for x in a.batch.split(",")]:
            whole, _ = run(named, a.arch, t, b, None, 0)
            paced, waited = run(named, a.arch, t, b, a.rate, min(2 * t * b, 256))
            print(f"{t:>7} {b:>5} {whole:>9.2f} {len(named) / whole:>9.1f} {paced:>12.2f} {waited:>9.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
