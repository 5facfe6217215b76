"""Seconds per evaluated configuration: kt-tui's headless run against plain kernel_tuner, on the
same kernel, space and GPU, in the same process tree, alternating so neither gets a warm start.

kt-tui's run includes everything a user pays for: starting the command and the GPU worker, the
baseline, verifying every configuration and writing every result to SQLite. kernel_tuner runs
`tune_kernel` brute force twice: bare, and with `answer=` (its own verification), which is the
fair comparison for a tool that checks every configuration.

usage (on a GPU machine): python benchmarks/harness.py [--backend nvcuda] [--repeat 2] KERNEL.cu ...
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
sys.path.insert(0, str(ROOT))

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
    answer = None
    if verify:
        outs = run_kernel(spec.kernel, kf.source, ps, make_args(spec), spec.baseline_params(), **common)
        answer = [o if a.output else None for o, a in zip(outs, spec.args)]
    results, _ = tune_kernel(spec.kernel, kf.source, ps, make_args(spec), dict(spec.tune_params),
                             restrictions=spec.restrictions or None, iterations=spec.iterations, answer=answer,
                             atol=max(a.tolerance()[0] for a in spec.outputs()) if verify else 1e-6, **common)
    return time.perf_counter() - t0, len(results)


def kt_tui(path: Path, backend: str) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp)
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "kt_tui", "run", str(path), "--auto", "--json", "--backend", backend,
                              "--db", f"{tmp}/h.db", "--strategy", "sweep"], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    if summary.get("error"):
        raise SystemExit(f"kt-tui failed on {path}: {summary['error']}")
    return wall, summary["results"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*", default=["examples/matmul.cu", "examples/reduction.cu"])
    ap.add_argument("--backend", default="nvcuda", choices=sorted(LANG))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args()
    rows = []
    for k in a.kernels:
        path = Path(k)
        for i in range(a.repeat):
            runs = {"kt-tui": kt_tui, "kernel_tuner": lambda p, b: plain_kernel_tuner(p, b, False),
                    "kernel_tuner+answer": lambda p, b: plain_kernel_tuner(p, b, True)}
            order = list(runs) if i % 2 == 0 else list(reversed(runs))
            got = {name: runs[name](path, a.backend) for name in order}
            for name, (wall, n) in got.items():
                rows.append({"kernel": path.stem, "round": i, "tool": name, "configs": n, "seconds": wall,
                             "s_per_config": wall / max(n, 1)})
    print(f"{'kernel':14} {'tool':20} {'configs':>7} {'s/config':>9}  ratio kt-tui / this")
    for k in a.kernels:
        stem = Path(k).stem
        for tool in ("kt-tui", "kernel_tuner", "kernel_tuner+answer"):
            mine = [r for r in rows if r["kernel"] == stem and r["tool"] == tool]
            per = sorted(r["s_per_config"] for r in mine)[len(mine) // 2]
            kt = sorted(r["s_per_config"] for r in rows if r["kernel"] == stem and r["tool"] == "kt-tui")[len(mine) // 2]
            print(f"{stem:14} {tool:20} {mine[0]['configs']:7d} {per:9.3f}  {kt / per:5.2f}")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
