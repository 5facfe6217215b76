"""Compiles per second of the app's compile pool (gpu/compiles.py) against kernel_tuner's own
compile step, one configuration after another, on a kernel's space; nvcc only (pycuda), no GPU.

kernel_tuner's pycuda backend compiles each configuration when its runner reaches it: nvcc to
relocatable PTX with its arguments (DynamicSourceModule), which the driver then links and JITs. With
no GPU here that last step is left out, so the baseline is kernel_tuner's nvcc call alone, made as
pycuda makes it (`nvcc --ptx`, the same options and extern "C" wrapping), one at a time. The pool
compiles the same kernel strings to linked cubins (nvcc -dlink included), on its threads, with and
without batching; its size is the host's cores less one per GPU (`--gpus`).

usage: python benchmarks/compile_pool.py [KERNEL.cu] [--configs 48] [--gpus 1]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def configurations(spec, n: int) -> list[dict]:
    from kt_tui.kernel.expr import restriction_function

    names = list(spec.tune_params)
    ok = restriction_function(list(spec.restrictions or []), names) if spec.restrictions else None
    out = []
    for values in itertools.product(*spec.tune_params.values()):
        params = dict(zip(names, values))
        if ok is None or ok(*values):
            out.append(params)
        if len(out) == n:
            break
    return out


def one_by_one(items: list[tuple[str, str, str]], options: list[str]) -> float:
    """kernel_tuner's nvcc calls for these, in turn (pycuda's DynamicSourceModule: PTX)."""
    from kt_tui.gpu.nvcc import pycuda_arguments, run_nvcc

    t0 = time.perf_counter()
    for _, name, text in items:
        args, wrap = pycuda_arguments("90", options, name, text)
        with tempfile.TemporaryDirectory(prefix="kt-bench-") as d:
            Path(d, "kernel.cu").write_text('extern "C" {\n' + text + "\n}\n" if wrap else text)
            rc, log = run_nvcc(["--ptx", *args, "kernel.cu"], d, None)
            if rc != 0:
                raise SystemExit(f"nvcc failed on {name}: {log[-500:]}")
    return time.perf_counter() - t0


def pooled(items: list[tuple[str, str, str]], options: list[str], gpus: int, batch: int) -> tuple[float, int, int]:
    from kt_tui.gpu.compiles import CompilePool

    os.environ["KT_TUI_COMPILE_BATCH"] = str(batch)
    t0 = time.perf_counter()
    with CompilePool("pycuda", "90", options, gpus=gpus) as pool:
        futures = pool.ahead(items)
        for key, name, text in items:  # asked for in order, as the device workers take them
            done = pool.submit(key, name, text).result()
            if done.binary is None:
                raise SystemExit(f"the pool did not compile {key}: {done.error}")
        del futures
        return time.perf_counter() - t0, pool.size, pool.batches


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", nargs="?", default=str(ROOT / "tests" / "corpus" / "matmul_rect.cu"))
    ap.add_argument("--configs", type=int, default=48)
    ap.add_argument("--gpus", type=int, default=1, help="device workers the host's cores are kept for")
    a = ap.parse_args()

    from kt_tui.gpu.ktsource import kernel_string
    from kt_tui.kernel.source import find_kernels
    from kt_tui.kernel.spec import load_spec
    from kt_tui.kernel.text import compile_options

    path = Path(a.kernel)
    source = path.read_text()
    toml = path.parent / "specs" / f"{path.name}.toml"
    spec = load_spec(toml if toml.exists() else Path(f"{path}.toml"), find_kernels(source)[0])
    items = [(str(i), *kernel_string(spec, source, p)) for i, p in enumerate(configurations(spec, a.configs))]
    options = compile_options(spec.compiler_options)
    n = len(items)
    cores = len(os.sched_getaffinity(0))
    print(f"{path.name}: {n} configurations, {cores} cores here, pool kept {a.gpus} for GPU workers")
    base = one_by_one(items, options)
    print(f"  kernel_tuner, one by one (nvcc --ptx)   {base:7.2f} s  {n / base:6.2f} compiles/s")
    for batch in (1, 8):
        s, size, batches = pooled(items, options, a.gpus, batch)
        print(
            f"  pool of {size}, {batch} a call ({batches} batches)  {s:7.2f} s  {n / s:6.2f} compiles/s"
            f"  ({base / s:.2f}x)"
        )


if __name__ == "__main__":
    main()
