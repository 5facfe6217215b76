"""How nvcc's throughput grows with concurrent calls on this host, one configuration a call and
kt-tui's batches of 8 (gpu/nvccbatch.py), for the first configurations of a kernel. Also the
host's CPU quota, where a cgroup sets one: a container may show more cores than it may use.

usage: python benchmarks/nvcc_scaling.py [KERNEL.cu] [--configs 240] [--levels 1,4,8,16,30]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.compilers import configs, nvcc_batch, nvcc_cubin  # noqa: E402


def quota() -> str:
    for path in ("/sys/fs/cgroup/cpu.max", "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"):
        try:
            return f"{path}: {Path(path).read_text().strip()}"
        except OSError:
            continue
    return "no cgroup CPU quota found"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel", nargs="?", default="benchmarks/spaces/matmul_tiled.cu")
    ap.add_argument("--configs", type=int, default=240)
    ap.add_argument("--levels", default="1,4,8,16,30")
    ap.add_argument("--arch", default="90")
    a = ap.parse_args()
    from kt_tui.front.kernelfile import load_kernel_spec, read_kernel_file
    from kt_tui.gpu.ktsource import kernel_string

    kf = read_kernel_file(a.kernel)
    _, spec = load_kernel_spec(kf, None, None)
    texts = [kernel_string(spec, kf.source, c) for c in configs(spec, a.configs)]
    print(f"# {a.kernel}: {len(texts)} configurations, {len(os.sched_getaffinity(0))} cores in affinity, {quota()}")
    print(f"{'concurrent':>10} {'alone /s':>9} {'8 a call /s':>12}")
    for n in [int(x) for x in a.levels.split(",")]:
        take = texts[: max(n * 2, 16)]
        t = time.perf_counter()
        with ThreadPoolExecutor(n) as ex:
            list(ex.map(lambda nt: nvcc_cubin(nt[1], nt[0], a.arch, True), take))
        alone = len(take) / (time.perf_counter() - t)
        take = texts[: max(n * 16, 16)]
        groups = [take[i : i + 8] for i in range(0, len(take), 8)]
        t = time.perf_counter()
        with ThreadPoolExecutor(n) as ex:
            list(ex.map(lambda g: nvcc_batch(g, a.arch), groups))
        batched = len(take) / (time.perf_counter() - t)
        print(f"{n:>10} {alone:9.1f} {batched:12.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
