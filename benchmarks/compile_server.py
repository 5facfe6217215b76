"""How many NVRTC compiles a second reach the GPU workers, by the way they are served.

The first N configurations of a kernel (kernel_tuner's brute-force order) compiled to cubins:
- `one`: one process, one at a time (a compile's own cost);
- `own`: one worker's own process pool of P (gpu/device/pools.py), as `--gpus 1` compiles ahead;
- `server`: the host's compile server (gpu/device/sharedpool.py) on P cores, from G client
  processes at once, each asking `depth` ahead the way a GPU worker's Prefetcher does (`--gpus G`).

No GPU is needed: NVRTC compiles for the architecture given (--arch).

usage: python benchmarks/compile_server.py [KERNEL.cu] [--configs 120] [--pool P] [--gpus 2] [--arch 90]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.compilers import configs  # noqa: E402


def texts(kernel: str, n: int) -> list[tuple[str, str]]:
    from kt_tui.gpu.ktsource import kernel_string
    from kt_tui.kernel.spec import load_spec, spec_path_for

    spec = load_spec(spec_path_for(kernel))
    source = Path(kernel).read_text()
    return [kernel_string(spec, source, p) for p in configs(spec, n)]


def options(arch: str) -> list[bytes]:
    out = ["--std=c++11", f"--gpu-architecture=sm_{arch}"]
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    if os.path.isdir(os.path.join(home, "include")):
        out.append(f"-I{os.path.join(home, 'include')}")
    return [o.encode() for o in out]


def stream(pool, named: list[tuple[str, str]], opts: list[bytes], depth: int) -> tuple[float, int]:
    """Ask `depth` ahead and take them in order, as a Prefetcher does: (seconds, compiles)."""
    from kt_tui.gpu.device.compilers import nvrtc_cubin

    t0 = time.perf_counter()
    todo, ahead = deque(named), deque()
    done = 0
    while todo or ahead:
        while todo and len(ahead) < depth:
            name, text = todo.popleft()
            ahead.append(pool.submit(nvrtc_cubin, text, name, opts))
        ahead.popleft().result()
        done += 1
    return time.perf_counter() - t0, done


def client(env: dict, named, opts, depth, out) -> None:
    os.environ.update(env)
    from kt_tui.gpu.device.sharedpool import shared_pool

    pool = shared_pool()
    assert pool is not None, "no compile server reachable"
    out.put(stream(pool, named, opts, depth))
    pool.shutdown()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", nargs="?", default=str(ROOT / "benchmarks/spaces/matmul_tiled.cu"))
    ap.add_argument("--configs", type=int, default=120)
    ap.add_argument("--pool", type=int, default=max(1, len(os.sched_getaffinity(0)) - 2))
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--arch", default="90")
    ap.add_argument("--modes", default="one,own,server")
    args = ap.parse_args()
    named = texts(args.kernel, args.configs)
    opts = options(args.arch)
    cores = sorted(os.sched_getaffinity(0))
    print(
        f"# {Path(args.kernel).name}: {len(named)} configurations, sm_{args.arch}, {len(cores)} cores, pool {args.pool}"
    )
    print(f"{'how':<40} {'s':>7} {'compiles/s':>11}")
    modes = args.modes.split(",")
    if "one" in modes:
        from kt_tui.gpu.device.compilers import nvrtc_cubin

        few = named[: max(4, len(named) // 10)]
        t0 = time.perf_counter()
        for name, text in few:
            nvrtc_cubin(text, name, opts)
        s = time.perf_counter() - t0
        print(f"{'one at a time (this process)':<40} {s:7.2f} {len(few) / s:11.1f}")
    if "own" in modes:
        from kt_tui.gpu.device.pools import CompilePool

        pool = CompilePool(args.pool)
        stream(pool, named[:4], opts, 4)  # its processes up, as after a session's first compiles
        s, n = stream(pool, named, opts, 24)
        pool.shutdown()
        print(f"{f'own pool of {args.pool}, 1 client':<40} {s:7.2f} {n / s:11.1f}")
    if "server" in modes:
        from kt_tui.gpu.device.sharedpool import Server, plan

        p = plan(args.gpus)
        p = type(p)(p.host_cores, p.kept, p.cores, p.gpus, args.pool)
        server = Server(p)
        assert server.wait(), "the compile server did not start"
        env = server.env()
        ctx = mp.get_context("spawn")
        out = ctx.Queue()
        warm = ctx.Process(target=client, args=(env, named[:4], opts, 4, out))
        warm.start()
        out.get()
        warm.join()
        share = [named[i :: args.gpus] for i in range(args.gpus)]
        t0 = time.perf_counter()
        procs = [ctx.Process(target=client, args=(env, s, opts, p.depth, out)) for s in share]
        for proc in procs:
            proc.start()
        got = [out.get() for _ in procs]
        for proc in procs:
            proc.join()
        s = time.perf_counter() - t0
        server.close()
        n = sum(c for _, c in got)
        per = ", ".join(f"{c / t:.1f}" for t, c in got)
        print(
            f"{f'server of {p.size}, {args.gpus} clients, {p.depth} ahead':<40} {s:7.2f} {n / s:11.1f}   (each: {per})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
