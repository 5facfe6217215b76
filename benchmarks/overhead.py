"""kt-tui's fixed cost against plain kernel_tuner, fresh processes on both sides, same kernels,
same spaces, alternating which runs first.

- sim (default, no GPU): `kt-tui run KERNEL --auto --backend sim` (the quick start) against
  kernel_tuner's own simulation mode on the same recorded cache (benchmarks/plain_kt.py --sim).
  Target: ratio <= 1.5.
- --gpu: `kt-tui run KERNEL --auto --backend B --search brute_force --no-seeds` against
  kernel_tuner `tune_kernel` with `answer` (input generation and the original's run included).
  Target: ratio <= 1.1 on 6-30 configurations; first result line <= 2 s.

Also: `kt-tui --help`, and the time from start to kt-tui's first result line.

usage: python benchmarks/overhead.py [--gpu [--backend pycuda]] [--repeat N] [--max-configs N]
                                     [--kernels vector_add,matmul] [--deadline-s 150] [--out DIR] [KERNEL.cu ...]
A run that fails is reported in the table and the others go on; no run starts once the deadline
is nearer than the longest run so far.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.short import Deadline, kernel_paths  # noqa: E402
SMALL = ["examples/vector_add.cu", "examples/reduction.cu", "examples/matmul.cu", "examples/transpose.cu"]


class RunFailed(Exception):
    pass


def kt_tui(kernel: str, extra: list[str], env: dict) -> dict:
    """Wall of the whole command, and when its first result line came (s after start)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(env, KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp)
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "kt_tui", "run", str(ROOT / kernel), "--auto", "--json",
                                 "--db", f"{tmp}/o.db", *extra], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, cwd=ROOT)
        first = None
        for line in proc.stderr:  # the progress lines: "[1] key  time  status"
            if first is None and line.startswith("[1]"):
                first = time.perf_counter() - t0
        out = proc.stdout.read()
        proc.wait()
        wall = time.perf_counter() - t0
    summary = json.loads(out[out.index("{"):]) if "{" in out else {}
    if proc.returncode != 0 or summary.get("error"):
        raise RunFailed(f"kt-tui failed on {kernel} (exit {proc.returncode}): {summary.get('error') or out[-2000:]}")
    return {"seconds": wall, "first_result_s": first, "configs": summary["results"]}


def plain(kernel: str, extra: list[str], env: dict) -> dict:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "plain_kt.py"), str(ROOT / kernel), *extra],
                         env=env, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RunFailed(f"kernel_tuner failed on {kernel}:\n{out.stderr[-3000:]}")
    return {"seconds": wall, "first_result_s": None, "configs": json.loads(out.stdout.strip().splitlines()[-1])["configs"]}


def recorded_cache(kernel: str) -> str:
    from kt_tui.front.session import load_kernel_spec, read_kernel_file
    from kt_tui.gpu.simcache import find_cache
    from kt_tui.kernel.spec import version_hash
    kf = read_kernel_file(ROOT / kernel)
    _, spec = load_kernel_spec(kf, None, None)
    found = find_cache(ROOT / kernel.rsplit("/", 1)[0] / "recorded", spec.kernel, version_hash(kf.source, spec))
    if found is None:
        raise SystemExit(f"no recorded cache for {kernel}")
    return str(found)


def machine() -> str:
    gpu = ""
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        gpu = "no GPU"
    return f"{platform.node()}: {os.cpu_count()} cores, {gpu}, Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*", default=SMALL)
    ap.add_argument("--gpu", action="store_true", help="measure on this machine's GPU instead of in simulation")
    ap.add_argument("--backend", default="pycuda", choices=("pycuda", "nvcuda", "cupy"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kernels", dest="names", help="comma-separated names under examples/ or benchmarks/spaces/ (instead of paths)")
    ap.add_argument("--max-configs", type=int, help="both tools stop after the first N configurations (brute force)")
    ap.add_argument("--deadline-s", type=float, default=0, help="start no run after this many seconds (0: none)")
    ap.add_argument("--out", help="write the table (overhead-*.txt) and the rows (JSON) into this folder")
    a = ap.parse_args()
    if a.names:
        a.kernels = kernel_paths(a.names)
    limit = ["--max-configs", str(a.max_configs)] if a.max_configs else []
    deadline = Deadline(a.deadline_s)
    env = dict(os.environ)
    if a.gpu:
        env["CUDA_CACHE_DISABLE"] = "1"  # the driver's JIT cache would favour whichever runs second
    rows, failed = [], []
    help_s = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "kt_tui", "--help"], env=env, capture_output=True, check=True, cwd=ROOT)
        help_s.append(time.perf_counter() - t0)
    for kernel in a.kernels:
        if a.gpu:
            sides = {"kt-tui": lambda k=kernel: kt_tui(k, ["--backend", a.backend, "--search", "brute_force",
                                                          "--no-seeds", *limit], env),
                     "kernel_tuner+answer": lambda k=kernel: plain(k, ["--backend", a.backend, "--answer", *limit], env)}
        else:
            try:
                cache = recorded_cache(kernel)
            except SystemExit as e:
                failed.append(f"{Path(kernel).stem}: {e}")
                continue
            sides = {"kt-tui": lambda k=kernel: kt_tui(k, ["--backend", "sim", *limit], env),
                     "kernel_tuner sim": lambda k=kernel, c=cache: plain(k, ["--sim", c, *limit], env)}
        for i in range(a.repeat):
            if not deadline.allows():
                break
            pair = []
            for name in (list(sides) if i % 2 == 0 else list(reversed(sides))):
                try:
                    pair.append({"kernel": Path(kernel).stem, "tool": name, "round": i, **sides[name]()})
                except RunFailed as e:
                    print(e, file=sys.stderr)
                    failed.append(f"{Path(kernel).stem} {name}: {str(e).splitlines()[0][:200]}")
                    pair = []
                    break
            deadline.ran(sum(r["seconds"] for r in pair))
            rows += pair
    lines = [f"# {'GPU (' + a.backend + ')' if a.gpu else 'simulation'}, median of {a.repeat}; {machine()}; "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
             f"{'; at most ' + str(a.max_configs) + ' configurations' if a.max_configs else ''}{deadline.note()}",
             f"kt-tui --help: {statistics.median(help_s):.3f} s",
             f"{'kernel':12} {'configs':>7} {'kt-tui s':>9} {'first result s':>14} {'kernel_tuner s':>14} {'ratio':>6}  target"]
    target = "<= 1.1, first result <= 2 s" if a.gpu else "<= 1.5"
    for kernel in a.kernels:
        stem = Path(kernel).stem
        kt = [r for r in rows if r["kernel"] == stem and r["tool"] == "kt-tui"]
        other = [r for r in rows if r["kernel"] == stem and r["tool"] != "kt-tui"]
        if not kt or not other:
            lines.append(f"{stem:12} not measured (failed or past the deadline)")
            continue
        kt_s, other_s = statistics.median(r["seconds"] for r in kt), statistics.median(r["seconds"] for r in other)
        firsts = [r["first_result_s"] for r in kt if r["first_result_s"] is not None]
        first = statistics.median(firsts) if firsts else float("nan")
        lines.append(f"{stem:12} {kt[0]['configs']:7d} {kt_s:9.2f} {first:14.2f} {other_s:14.2f} "
                     f"{kt_s / other_s:6.2f}  {target}")
    lines += [f"FAILED {f}" for f in failed]
    table = "\n".join(lines)
    print(table)
    if a.out:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        name = f"overhead-{'gpu-' + a.backend if a.gpu else 'sim'}"
        (out / f"{name}.txt").write_text(table + "\n")
        (out / f"{name}.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
