"""What one configuration's compile and load cost on this GPU host, per compiler path.

For the first N configurations of a kernel (kernel_tuner's brute-force order, restrictions held):
- compile alone (one at a time) and on a pool of P (threads, and spawned processes), per path:
  nvcc through pycuda as kernel_tuner's pycuda backend asks it (relocatable code, `-rdc=true`),
  nvcc without -rdc, nvcc -rdc then `nvcc -dlink -cubin` (linked ahead, on the compile cores),
  NVRTC (relocatable and not);
- loading each result into a context (what the measuring process pays per configuration);
- the SASS of each path against nvcc's (cuobjdump, where the toolkit has it) and the kernel's
  time from each, so a faster path is only taken where it runs the same code.

usage: python benchmarks/compilers.py [KERNEL.cu] [--configs 96] [--pool P]
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def configs(spec, n: int) -> list[dict]:
    from kt_tui.kernel.expr import restriction_function

    names = list(spec.tune_params)
    ok = restriction_function(list(spec.restrictions or []), names)
    out = []
    for values in itertools.product(*spec.tune_params.values()):
        if ok(*values):
            out.append(dict(zip(names, values)))
        if len(out) == n:
            break
    return out


def nvcc_cubin(text: str, name: str, arch: str, rdc: bool, dlink: bool = False) -> bytes:
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "k.cu"), os.path.join(d, "k.cubin")
        Path(src).write_text(text if 'extern "C"' in text else 'extern "C" {\n' + text + "\n}\n")
        cmd = ["nvcc", "--cubin", f"-arch=compute_{arch}", f"-code=sm_{arch}", "-Xcompiler=-Wall", "-e", name]
        subprocess.run([*cmd, *(["-rdc=true"] if rdc else []), src, "-o", out], check=True, capture_output=True)
        if dlink:
            linked = os.path.join(d, "l.cubin")
            subprocess.run(
                ["nvcc", "-dlink", "--cubin", f"-arch=sm_{arch}", out, "-lcudadevrt", "-o", linked],
                check=True,
                capture_output=True,
            )
            out = linked
        return Path(out).read_bytes()


def nvcc_batch(named: list[tuple[str, str]], arch: str) -> bytes:
    """kt-tui's batches (kt_tui/gpu/nvccbatch.py): these configurations in one relocatable nvcc call."""
    from kt_tui.gpu.nvccbatch import alias, batch_source, functions

    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "k.cu"), os.path.join(d, "k.cubin")
        Path(src).write_text(batch_source(named, functions(named[0][1])))
        entries = ",".join(alias(n, i) for i, (n, _) in enumerate(named))
        cmd = ["nvcc", "--cubin", f"-arch=compute_{arch}", f"-code=sm_{arch}", "-Xcompiler=-Wall", "-e", entries]
        subprocess.run([*cmd, "-rdc=true", src, "-o", out], check=True, capture_output=True)
        return Path(out).read_bytes()


def batches(texts: list[tuple[str, str]], arch: str, pool: int, size: int) -> str:
    """Configurations/s of kt-tui's batches of `size` on `pool` threads, and how many configurations
    have the same machine code (ELF .text bytes) as nvcc -rdc alone."""
    from kt_tui.gpu.elf import elf_section
    from kt_tui.gpu.nvccbatch import alias

    groups = [texts[i : i + size] for i in range(0, len(texts), size)]
    t = time.perf_counter()
    nvcc_batch(groups[0], arch)
    first = time.perf_counter() - t
    t = time.perf_counter()
    with ThreadPoolExecutor(pool) as ex:
        made = list(ex.map(lambda g: nvcc_batch(g, arch), groups))
    rate = len(texts) / (time.perf_counter() - t)
    same = total = 0
    for group, cubin in zip(groups[:3], made[:3]):
        for i, (name, text) in enumerate(group):
            alone = nvcc_cubin(text, name, arch, True)
            total += 1
            same += elf_section(cubin, f".text.{alias(name, i)}") == elf_section(alone, f".text.{name}") is not None
    return (
        f"{'nvcc -rdc, ' + str(size) + ' a call (kt-tui)':36} {first:8.3f} {rate:10.1f} {'-':>9} {'-':>8}"
        f"   (one call of {len(groups[0])}; machine code as alone in {same} of {total})"
    )


def nvrtc_cubin(text: str, name: str, arch: str, rdc: bool) -> bytes:
    from cuda.bindings import nvrtc

    text = text if 'extern "C"' in text else 'extern "C" {\n' + text + "\n}\n"
    err, prog = nvrtc.nvrtcCreateProgram(text.encode(), b"k.cu", 0, [], [])
    opts = [f"--gpu-architecture=sm_{arch}".encode(), b"--std=c++11"] + ([b"-rdc=true"] if rdc else [])
    (res,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if res != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(log.decode(errors="replace")[:400])
    _, size = nvrtc.nvrtcGetCUBINSize(prog)
    buf = b" " * size
    nvrtc.nvrtcGetCUBIN(prog, buf)
    nvrtc.nvrtcDestroyProgram(prog)
    return buf


PATHS = {
    "nvcc -rdc (kernel_tuner's pycuda)": lambda t, n, a: nvcc_cubin(t, n, a, True),
    "nvcc": lambda t, n, a: nvcc_cubin(t, n, a, False),
    "nvcc -rdc + dlink": lambda t, n, a: nvcc_cubin(t, n, a, True, True),
    "nvrtc -rdc": lambda t, n, a: nvrtc_cubin(t, n, a, True),
    "nvrtc": lambda t, n, a: nvrtc_cubin(t, n, a, False),
}


def _one(path: str, text: str, name: str, arch: str) -> float:
    t = time.perf_counter()
    PATHS[path](text, name, arch)
    return time.perf_counter() - t


def sass(cubin: bytes, tool: str) -> list[str]:
    """The kernel's instructions as cuobjdump prints them, without addresses and encodings."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        out = subprocess.run([tool, "-sass", f.name], capture_output=True, text=True).stdout
    return [m.group(1).strip() for m in re.finditer(r"/\*[0-9a-f]{4}\*/\s+([^;]*);", out)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", nargs="?", default="benchmarks/spaces/matmul_tiled.cu")
    ap.add_argument("--configs", type=int, default=96)
    ap.add_argument("--pool", type=int, default=max(1, len(os.sched_getaffinity(0)) - 1))
    ap.add_argument("--paths", default=",".join(PATHS))
    ap.add_argument("--batch", default="8", help="kt-tui's batch sizes to measure beside, comma-separated (0: none)")
    a = ap.parse_args()

    import numpy as np
    import pycuda.autoinit  # noqa: F401
    import pycuda.driver as drv
    from pycuda.compiler import DynamicModule
    from pycuda.driver import jit_input_type, module_from_buffer

    from kt_tui.front.kernelfile import load_kernel_spec, read_kernel_file
    from kt_tui.gpu.ktsource import kernel_string, launch

    kf = read_kernel_file(a.kernel)
    _, spec = load_kernel_spec(kf, None, None)
    cfgs = configs(spec, a.configs)
    texts = [kernel_string(spec, kf.source, c) for c in cfgs]
    major, minor = drv.Context.get_device().compute_capability()
    arch = f"{major}{minor}"
    paths = [p for p in PATHS if p in a.paths.split(",")]
    print(
        f"# {a.kernel}: {len(cfgs)} configurations, {drv.Context.get_device().name()}, sm_{arch}, pool {a.pool}, "
        f"{len(os.sched_getaffinity(0))} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    print(f"{'path':36} {'alone s':>8} {'threads/s':>10} {'procs/s':>9} {'load ms':>8}")
    cubins: dict[str, list[bytes]] = {}
    for p in paths:
        try:
            alone = statistics.median(_one(p, t, n, arch) for n, t in texts[:5])
        except Exception as e:  # noqa: BLE001 - a path this host lacks: say so and go on
            print(f"{p:36} fails: {type(e).__name__}: {str(e)[:200]}")
            continue
        t0 = time.perf_counter()
        with ThreadPoolExecutor(a.pool) as ex:
            cubins[p] = list(ex.map(lambda nt, p=p: PATHS[p](nt[1], nt[0], arch), texts))
        threads = len(texts) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        with ProcessPoolExecutor(a.pool, mp_context=get_context("spawn")) as ex:
            list(ex.map(_one, [p] * len(texts), [t for _, t in texts], [n for n, _ in texts], [arch] * len(texts)))
        procs = len(texts) / (time.perf_counter() - t0)
        loads = []
        for (name, _), cubin in zip(texts[:32], cubins[p][:32]):
            t = time.perf_counter()
            if "-rdc" in p and "dlink" not in p:
                m = DynamicModule(arch=f"compute_{arch}", code=f"sm_{arch}")
                m.add_data(cubin, jit_input_type.CUBIN, "kernel.cubin")
                m.add_stdlib("cudadevrt")
                m.link()
            else:
                m = module_from_buffer(cubin)
            m.get_function(name)
            loads.append(time.perf_counter() - t)
        print(f"{p:36} {alone:8.3f} {threads:10.1f} {procs:9.1f} {1000 * statistics.median(loads):8.2f}", flush=True)

    for size in [int(x) for x in a.batch.split(",") if int(x) > 0]:
        print(batches(texts, arch, a.pool, size), flush=True)

    tool = next(
        (
            t
            for t in ("cuobjdump", "/usr/local/cuda/bin/cuobjdump")
            if subprocess.run(["which", t], capture_output=True).returncode == 0 or os.path.exists(t)
        ),
        None,
    )
    base = "nvcc -rdc (kernel_tuner's pycuda)"
    if tool and base in cubins:
        for p in cubins:
            pairs = [(sass(x, tool), sass(y, tool)) for x, y in zip(cubins[base][:24], cubins[p][:24])]
            same = sum(x == y for x, y in pairs)
            print(
                f"SASS of {p!r} equal to nvcc -rdc's in {same} of {len(pairs)} configurations"
                f" ({sum(len(y) for _, y in pairs)} instructions; first: {pairs[0][1][:3] if pairs else []})"
            )
    else:
        print("no cuobjdump here: SASS not compared")

    # the kernel's time from each path's module, for the first 8 configurations (linked where relocatable)
    args = [a_ for a_ in spec.args]
    from kt_tui.kernel.inputs import make_args

    host = make_args(spec)
    dev = [drv.to_device(x) if isinstance(x, np.ndarray) else x for x in host]
    print("kernel time ms (median of 20) by configuration and path:")
    for i, ((name, _), c) in enumerate(zip(texts[:8], cfgs[:8])):
        threads, grid = launch(spec, c)
        row = []
        for p, cbs in cubins.items():
            if "-rdc" in p and "dlink" not in p:
                m = DynamicModule(arch=f"compute_{arch}", code=f"sm_{arch}")
                m.add_data(cbs[i], jit_input_type.CUBIN, "kernel.cubin")
                m.add_stdlib("cudadevrt")
                m.link()
            else:
                m = module_from_buffer(cbs[i])
            f = m.get_function(name)
            start, end = drv.Event(), drv.Event()
            ts = []
            for _ in range(21):
                start.record()
                f(*[d if not isinstance(d, (int, float)) else np.int32(d) for d in dev], block=threads, grid=grid)
                end.record()
                end.synchronize()
                ts.append(end.time_since(start))
            row.append(f"{p.split(' (')[0]} {statistics.median(ts[1:]):.4f}")
        print(f"  {c}: " + "; ".join(row), flush=True)
    del args
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
