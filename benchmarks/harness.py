"""Seconds per evaluated configuration: kt-tui's headless run against plain kernel_tuner, on the
same kernel, space and GPU, each in a fresh process, alternating the order so neither gets a warm
start (the driver's JIT cache is off, and each run gets its own empty cupy kernel cache).

kt-tui's run includes everything a user pays for: starting the command and the GPU worker, the
baseline, verifying every configuration, writing every result to SQLite and the checks at other
sizes. kernel_tuner runs `tune_kernel` brute force (benchmarks/plain_kt.py), bare and with
`answer=` (its own verification, the fair comparison for a tool that checks every configuration).
Both walk the space in brute-force order with the same backend; --max-configs stops both after
the first N configurations.

The default spaces are compile-heavy (benchmarks/spaces/expdist_like.cu, matmul_tiled.cu): there,
kt-tui compiling ahead on the machine's cores should bring its cost per configuration to 0.3x
plain kernel_tuner's or less.

usage (on a GPU machine): python benchmarks/harness.py [--backend pycuda] [--repeat 1]
                          [--max-configs N] [--kernels expdist_like,matmul_tiled] [--deadline-s 150]
                          [--out DIR] [KERNEL.cu ...]
A run that fails is reported in the table and the others go on; no run starts once the deadline
is nearer than the longest run so far.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.short import Deadline, kernel_paths  # noqa: E402

TOOLS = ("kt-tui", "kt-tui, no compile-ahead", "kernel_tuner", "kernel_tuner+answer")
DEFAULT = ["benchmarks/spaces/expdist_like.cu", "benchmarks/spaces/matmul_tiled.cu"]


class RunFailed(Exception):
    pass


def _env(tmp: str, **extra) -> dict:
    # the driver's JIT cache and cupy's kernel cache would let whichever tool runs second skip compiling
    return dict(os.environ, CUDA_CACHE_DISABLE="1", CUPY_CACHE_DIR=f"{tmp}/cupy", **extra)


def plain_kernel_tuner(path: str, backend: str, verify: bool, max_configs: int | None) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, str(ROOT / "benchmarks" / "plain_kt.py"), str(ROOT / path), "--backend", backend]
        cmd += ["--answer"] if verify else []
        cmd += ["--max-configs", str(max_configs)] if max_configs else []
        t0 = time.perf_counter()
        out = subprocess.run(cmd, env=_env(tmp), capture_output=True, text=True, cwd=ROOT)
        wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RunFailed(f"kernel_tuner failed on {path}:\n{out.stderr[-3000:]}")
    return wall, json.loads(out.stdout.strip().splitlines()[-1])["configs"], ""


def kt_tui(path: str, backend: str, prefetch: bool, max_configs: int | None) -> tuple[float, int, str]:
    with tempfile.TemporaryDirectory() as tmp:
        env = _env(
            tmp,
            KT_TUI_DATA_DIR=tmp,
            KT_TUI_CONFIG_DIR=tmp,
            KT_TUI_PREFETCH="1" if prefetch else "0",
            KT_TUI_PREFETCH_STATS=f"{tmp}/ahead.jsonl",
        )
        cmd = [
            sys.executable,
            "-m",
            "kt_tui",
            "run",
            str(ROOT / path),
            "--auto",
            "--json",
            "--backend",
            backend,
            "--db",
            f"{tmp}/h.db",
            "--strategy",
            "sweep",
            "--search",
            "brute_force",
            "--no-seeds",
        ]
        cmd += ["--max-configs", str(max_configs)] if max_configs else []
        t0 = time.perf_counter()
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
        wall = time.perf_counter() - t0
        ahead = _ahead(Path(f"{tmp}/ahead.jsonl"))
    try:
        summary = json.loads(out.stdout[out.stdout.index("{") :])
    except ValueError:
        raise RunFailed(f"kt-tui gave no JSON on {path} (exit {out.returncode}):\n{out.stderr[-3000:]}") from None
    if summary.get("error"):
        raise RunFailed(f"kt-tui failed on {path}: {summary['error']}")
    return wall, summary["results"], ahead


def _ahead(stats: Path) -> str:
    """What compiling ahead did over the session's jobs: compiles used / all, time waited on the pool."""
    if not stats.exists():
        return ""
    jobs = [json.loads(line) for line in stats.read_text().splitlines() if line.strip()]
    used = sum(j["used"] for j in jobs)
    every = sum(j["used"] + j["failed"] + j["not_ahead"] for j in jobs)
    text = f"ahead {used}/{every}, waited {sum(j['waited_s'] for j in jobs):.1f} s"
    failure = next((j["first_failure"] for j in jobs if j["first_failure"]), None)
    return text + (f", failed: {failure[:120]}" if failure else "")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*", default=DEFAULT)
    ap.add_argument("--backend", default="pycuda", choices=("pycuda", "nvcuda", "cupy"))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--max-configs", type=int, default=48, help="stop every tool after this many (0: all)")
    ap.add_argument("--kernels", dest="names", help="comma-separated names under examples/ or benchmarks/spaces/")
    ap.add_argument("--deadline-s", type=float, default=0, help="start no run after this many seconds (0: none)")
    ap.add_argument("--tools", help="comma-separated subset of: " + ", ".join(TOOLS))
    ap.add_argument("--out", help="write the table (harness-BACKEND.txt) and the rows (JSON) into this folder")
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args()
    if a.names:
        a.kernels = kernel_paths(a.names)
    deadline = Deadline(a.deadline_s)
    n = a.max_configs or None
    runs = {
        "kt-tui": lambda p: kt_tui(p, a.backend, True, n),
        "kt-tui, no compile-ahead": lambda p: kt_tui(p, a.backend, False, n),
        "kernel_tuner": lambda p: plain_kernel_tuner(p, a.backend, False, n),
        "kernel_tuner+answer": lambda p: plain_kernel_tuner(p, a.backend, True, n),
    }
    runs = {k: v for k, v in runs.items() if not a.tools or k in a.tools.split(",")}
    rows, failed = [], []
    for path in a.kernels:
        for i in range(a.repeat):
            for name in list(runs) if i % 2 == 0 else list(reversed(runs)):
                if not deadline.allows():
                    continue
                try:
                    wall, count, ahead = runs[name](path)
                except RunFailed as e:
                    print(e, file=sys.stderr)
                    failed.append(f"{Path(path).stem} {name}: {str(e).splitlines()[0][:300]}")
                    continue
                deadline.ran(wall)
                rows.append(
                    {
                        "kernel": Path(path).stem,
                        "round": i,
                        "tool": name,
                        "configs": count,
                        "seconds": wall,
                        "s_per_config": wall / max(count, 1),
                        "ahead": ahead,
                    }
                )
    lines = [
        f"# backend {a.backend}, {os.cpu_count()} cores, median of {a.repeat}, at most {n or 'all'} configurations; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}{deadline.note()}",
        f"{'kernel':14} {'tool':26} {'configs':>7} {'seconds':>8} {'s/config':>9}  kt-tui / this",
    ]
    for path in a.kernels:
        stem = Path(path).stem
        mine = {t: [r for r in rows if r["kernel"] == stem and r["tool"] == t] for t in runs}
        kt = statistics.median(r["s_per_config"] for r in mine["kt-tui"]) if mine.get("kt-tui") else None
        for tool, rs in mine.items():
            if not rs:
                lines.append(f"{stem:14} {tool:26} not measured (failed or past the deadline)")
                continue
            per = statistics.median(r["s_per_config"] for r in rs)
            wall = statistics.median(r["seconds"] for r in rs)
            ratio = f"{kt / per:5.2f}" if kt else "  -"
            lines.append(
                f"{stem:14} {tool:26} {rs[0]['configs']:7d} {wall:8.1f} {per:9.3f}  {ratio}"
                + (f"   {rs[0]['ahead']}" if rs[0]["ahead"] else "")
            )
    lines += [f"FAILED {f}" for f in failed]
    table = "\n".join(lines)
    print(table)
    if a.out:
        Path(a.out).mkdir(parents=True, exist_ok=True)
        (Path(a.out) / f"harness-{a.backend}.txt").write_text(table + "\n")
        (Path(a.out) / f"harness-{a.backend}.json").write_text(json.dumps(rows, indent=1))
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
