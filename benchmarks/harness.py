"""Seconds per evaluated configuration: kt-tui's headless run against plain kernel_tuner, on the
same kernel, space and GPU, in the same process tree, alternating so neither gets a warm start.

kt-tui's run includes everything a user pays for: starting the command and the GPU worker, the
baseline, verifying every configuration and writing every result to SQLite. kernel_tuner runs
`tune_kernel` brute force twice: bare, and with `answer=` (its own verification), which is the
fair comparison for a tool that checks every configuration.

Both sides walk the whole space in brute-force order with the same backend. kt-tui's start-up
(process, GPU worker, baseline, reference, checks at other sizes) is counted, so small spaces
show its fixed cost and large ones its cost per configuration.

usage (on a GPU machine): python benchmarks/harness.py [--backend nvcuda] [--repeat 1] [KERNEL.cu ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the driver's JIT cache would let whichever tool runs second skip compiling: neither gets it
os.environ["CUDA_CACHE_DISABLE"] = "1"
sys.path.insert(0, str(ROOT))

TOOLS = ("kt-tui", "kt-tui, no compile-ahead", "kernel_tuner", "kernel_tuner+answer")
LANG = {"nvcuda": "CUDA", "cupy": "cupy", "pycuda": "pycuda"}


def plain_kernel_tuner(path: Path, backend: str, verify: bool) -> tuple[float, int]:
    from kernel_tuner import run_kernel, tune_kernel

    from kt_tui.engine.session import load_kernel_spec, read_kernel_file
    from kt_tui.kernel.inputs import make_args

    kf = read_kernel_file(path)
    _, spec = load_kernel_spec(kf, None, None)
    ps = spec.problem_size_values()
    ps = ps if len(ps) > 1 else ps[0]
    common = dict(grid_div_x=spec.grid_div_x, grid_div_y=spec.grid_div_y, block_size_names=spec.block_size_names,
                  lang=LANG[backend], quiet=True)
    t0 = time.perf_counter()
    answer, failed = None, []
    if verify:
        outs = run_kernel(spec.kernel, kf.source, ps, make_args(spec), spec.baseline_params(), **common)
        answer = [o if a.output else None for o, a in zip(outs, spec.args)]
    results, _ = tune_kernel(spec.kernel, kf.source, ps, make_args(spec), dict(spec.tune_params),
                             restrictions=spec.restrictions or None, iterations=spec.iterations, answer=answer,
                             verify=_recorder(spec, failed) if verify else None, **common)
    return time.perf_counter() - t0, len(results)


def _recorder(spec, failed: list):
    """kernel_tuner's own comparison, except that a wrong configuration is counted instead of
    aborting the whole run (which is what `answer` alone does)."""
    import numpy as np
    tols = [a.tolerance() if a.output else None for a in spec.args]

    def verify(answer, result_host, atol=None):
        for want, got, tol in zip(answer, result_host, tols):
            if want is not None and not np.allclose(got, want, atol=tol[0], rtol=tol[1], equal_nan=True):
                failed.append(1)
        return True
    return verify


def kt_tui(path: Path, backend: str, prefetch: bool = True) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp, KT_TUI_PREFETCH="1" if prefetch else "0")
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "kt_tui", "run", str(path), "--auto", "--json", "--backend", backend,
                              "--db", f"{tmp}/h.db", "--strategy", "sweep", "--search", "brute_force", "--no-seeds"], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    try:
        summary = json.loads(out.stdout[out.stdout.rindex("\n{"):] if "\n{" in out.stdout else out.stdout)
    except ValueError:
        raise SystemExit(f"kt-tui gave no JSON on {path} (exit {out.returncode}):\n{out.stderr[-3000:]}") from None
    if summary.get("error"):
        raise SystemExit(f"kt-tui failed on {path}: {summary['error']}")
    return wall, summary["results"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*", default=["examples/matmul.cu", "benchmarks/spaces/reduction.cu"])
    ap.add_argument("--backend", default="nvcuda", choices=sorted(LANG))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", help="also write the rows here")
    ap.add_argument("--tools", help="comma-separated subset of: " + ", ".join(TOOLS))
    a = ap.parse_args()
    rows = []
    for k in a.kernels:
        path = Path(k)
        for i in range(a.repeat):
            runs = {"kt-tui": kt_tui, "kt-tui, no compile-ahead": lambda p, b: kt_tui(p, b, False),
                    "kernel_tuner": lambda p, b: plain_kernel_tuner(p, b, False),
                    "kernel_tuner+answer": lambda p, b: plain_kernel_tuner(p, b, True)}
            runs = {k: v for k, v in runs.items() if not a.tools or k in a.tools.split(",")}
            order = list(runs) if i % 2 == 0 else list(reversed(runs))
            got = {name: runs[name](path, a.backend) for name in order}
            for name, (wall, n) in got.items():
                rows.append({"kernel": path.stem, "round": i, "tool": name, "configs": n, "seconds": wall,
                             "s_per_config": wall / max(n, 1)})
    print(f"{'kernel':14} {'tool':26} {'configs':>7} {'s/config':>9}  ratio kt-tui / this")
    for k in a.kernels:
        stem = Path(k).stem
        for tool in TOOLS:
            mine = [r for r in rows if r["kernel"] == stem and r["tool"] == tool]
            if not mine:
                continue
            per = sorted(r["s_per_config"] for r in mine)[len(mine) // 2]
            kt = sorted(r["s_per_config"] for r in rows if r["kernel"] == stem and r["tool"] == "kt-tui")[len(mine) // 2]
            print(f"{stem:14} {tool:26} {mine[0]['configs']:7d} {per:9.3f}  {kt / per:5.2f}")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
