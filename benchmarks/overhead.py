"""kt-tui's fixed cost against plain kernel_tuner, fresh processes on both sides, same kernels,
same spaces, alternating which runs first.

- sim (default, no GPU): `kt-tui run KERNEL --auto --backend sim` (the quick start) against
  kernel_tuner's own simulation mode on the same recorded cache (benchmarks/plain_kt.py --sim).
  Target: ratio <= 1.5.
- --gpu: `kt-tui run KERNEL --auto --backend B --search brute_force --no-seeds` against
  kernel_tuner `tune_kernel` with `answer` (input generation and the original's run included).
  Target: ratio <= 1.1 on 6-30 configurations; first result line <= 2 s.

Also: `kt-tui --help`, the time from start to kt-tui's first result line, and where that time went
(the steps the app and the GPU worker mark with KT_TUI_TRACE, gpu/timeline.py) in kt-tui's median run.

Before timing, kt-tui's modules are compiled to bytecode and one kt-tui run goes untimed (a machine
kt-tui ran on before: with PYTHONDONTWRITEBYTECODE set, every start would otherwise compile them
again); --no-warmup times the first runs as they come.

--resume N: a session of N stored results (benchmarks/tui.py's generator) resumed headless with
`kt-tui resume ID --auto`: with work left (the recorded sweep still to replay) and once finished,
the time to its first line of output and to its exit. Target: first line <= 1 s.

usage: python benchmarks/overhead.py [--gpu [--backend pycuda]] [--repeat N] [--max-configs N]
                                     [--kernels vector_add,matmul] [--deadline-s 150] [--out DIR] [KERNEL.cu ...]
       python benchmarks/overhead.py --resume 100000 [--repeat N] [--out DIR]
A run that fails is reported in the table and the others go on; no run starts once the deadline
is nearer than the longest run so far.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.short import Deadline, kernel_paths  # noqa: E402
from kt_tui.gpu.timeline import read as read_trace  # noqa: E402

SMALL = ["examples/vector_add.cu", "examples/reduction.cu", "examples/matmul.cu", "examples/transpose.cu"]


class RunFailed(Exception):
    pass


def kt_tui(kernel: str, extra: list[str], env: dict, probe: Path | None = None, root: Path = ROOT) -> dict:
    """Wall of the whole command, when its first result line came (s after start), and the steps
    the app and its GPU worker marked on the way (s after start). probe: a backend-probe.json to
    start from (the probe remembered, as on a machine kt-tui has run on before)."""
    with tempfile.TemporaryDirectory() as tmp:
        if probe is not None:
            shutil.copy(probe, Path(tmp) / "backend-probe.json")
        env = dict(env, KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp, KT_TUI_TRACE=f"{tmp}/trace")
        if root != ROOT:  # another checkout's kt_tui (today's main beside this one): its modules first
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
        t0, wall0 = time.perf_counter(), time.time()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kt_tui",
                "run",
                str(ROOT / kernel),
                "--auto",
                "--json",
                "--db",
                f"{tmp}/o.db",
                *extra,
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=root,
        )
        first = tuned = None
        for line in proc.stderr:  # the progress lines: "[1] key  time  status"; [1] is the baseline
            if first is None and line.startswith("[1]"):
                first = time.perf_counter() - t0
            if tuned is None and line.startswith("[2]"):
                tuned = time.perf_counter() - t0
        out = proc.stdout.read()
        proc.wait()
        wall = time.perf_counter() - t0
        marks = [(round(t - wall0, 4), step) for t, _, step in read_trace(f"{tmp}/trace")]
    summary = json.loads(out[out.index("{") :]) if "{" in out else {}
    if proc.returncode != 0 or summary.get("error"):
        raise RunFailed(f"kt-tui failed on {kernel} (exit {proc.returncode}): {summary.get('error') or out[-2000:]}")
    return {
        "seconds": wall,
        "first_result_s": first,
        "first_tuned_s": tuned,
        "configs": summary["results"],
        "marks": marks,
    }


def _median(rows: list[dict], key: str) -> float:
    got = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(got) if got else float("nan")


def first_result_steps(run: dict) -> list[str]:
    """The marked steps up to the first result line of one kt-tui run, each with its time after start;
    after it, the jobs sent and the check's test (it runs beside the first measurements)."""
    lines, first = [], run["first_result_s"]
    for t, step in run["marks"]:
        after = first is not None and t > first
        if after and not (step.startswith("main: job") or "check" in step):
            continue
        if after and first is not None:
            lines.append(f"  {first:7.3f} s  first result line printed")
            first = None
        lines.append(f"  {t:7.3f} s  {step}")
    if first is not None:
        lines.append(f"  {first:7.3f} s  first result line printed")
    return lines


def remembered_probe(backend: str, env: dict, where: str) -> Path:
    """This machine's backend probe, as kt-tui remembers it after its first run (gpu/probe_cache.py)."""
    path = Path(where) / "backend-probe.json"
    code = (
        "import sys; from pathlib import Path; from kt_tui.gpu.tuner import Tuner; "
        "from kt_tui.gpu.probe_cache import cached_probe\n"
        "if __name__ == '__main__':\n"
        "    w = Tuner(); found = cached_probe(w.probe, Path(sys.argv[1]))((sys.argv[2],)); w.close()\n"
        "    print(found)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path), backend], env=env, capture_output=True, text=True, cwd=ROOT
    )
    if not path.is_file():
        raise SystemExit(f"the backend probe failed: {out.stdout[-1000:]}{out.stderr[-2000:]}")
    return path


def warm_up(kernel: str, extra: list[str], env: dict, probe: Path | None) -> None:
    """kt-tui's modules compiled to bytecode and one untimed run (its failure shows in the timed ones)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "kt_tui")], env=env, capture_output=True)
    try:
        kt_tui(kernel, extra, env, probe)
    except RunFailed:
        pass


def plain(kernel: str, extra: list[str], env: dict) -> dict:
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "plain_kt.py"), str(ROOT / kernel), *extra],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RunFailed(f"kernel_tuner failed on {kernel}:\n{out.stderr[-3000:]}")
    return {
        "seconds": wall,
        "first_result_s": None,
        "configs": json.loads(out.stdout.strip().splitlines()[-1])["configs"],
    }


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
        gpu = (
            subprocess.run(
                ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=20,
            )
            .stdout.strip()
            .splitlines()[0]
        )
    except (OSError, IndexError, subprocess.SubprocessError):
        gpu = "no GPU"
    return f"{platform.node()}: {os.cpu_count()} cores, {gpu}, Python {platform.python_version()}, load {os.getloadavg()[0]:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kernels", nargs="*", default=SMALL)
    ap.add_argument("--gpu", action="store_true", help="measure on this machine's GPU instead of in simulation")
    ap.add_argument(
        "--probe-cached",
        action="store_true",
        help="--gpu: each kt-tui run finds the backend probe remembered (a machine it ran on before)",
    )
    ap.add_argument("--backend", default="pycuda", choices=("pycuda", "nvcuda", "cupy"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--kernels", dest="names", help="comma-separated names under examples/ or benchmarks/spaces/ (instead of paths)"
    )
    ap.add_argument("--max-configs", type=int, help="both tools stop after the first N configurations (brute force)")
    ap.add_argument("--deadline-s", type=float, default=0, help="start no run after this many seconds (0: none)")
    ap.add_argument("--out", help="write the table (overhead-*.txt) and the rows (JSON) into this folder")
    ap.add_argument("--resume", type=int, metavar="N", help="time `resume --auto` of a session of N results instead")
    ap.add_argument("--no-warmup", dest="warmup", action="store_false", help="no bytecode compile, no untimed run")
    ap.add_argument(
        "--kt", type=Path, help="also time this other checkout's kt-tui (e.g. today's main) in the same run"
    )
    a = ap.parse_args()
    if a.resume:
        return resume_table(a.resume, a.repeat, a.out)
    if a.names:
        a.kernels = kernel_paths(a.names)
    limit = ["--max-configs", str(a.max_configs)] if a.max_configs else []
    deadline = Deadline(a.deadline_s)
    env = dict(os.environ)
    probe = None
    if a.gpu:
        env["CUDA_CACHE_DISABLE"] = "1"  # the driver's JIT cache would favour whichever runs second
        if a.probe_cached:
            probe = remembered_probe(a.backend, env, tempfile.mkdtemp())
    if a.warmup:
        gpu_flags = ["--backend", a.backend, "--search", "brute_force", "--no-seeds"]
        warm_up(a.kernels[0], [*(gpu_flags if a.gpu else ["--backend", "sim"]), *limit], env, probe)
    rows, failed = [], []
    help_s = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "kt_tui", "--help"], env=env, capture_output=True, check=True, cwd=ROOT)
        help_s.append(time.perf_counter() - t0)
    for kernel in a.kernels:
        if a.gpu:
            sides = {
                "kt-tui": lambda k=kernel: kt_tui(
                    k, ["--backend", a.backend, "--search", "brute_force", "--no-seeds", *limit], env, probe
                ),
                "kernel_tuner+answer": lambda k=kernel: plain(k, ["--backend", a.backend, "--answer", *limit], env),
            }
            if a.kt:
                sides["kt-tui@other"] = lambda k=kernel: kt_tui(
                    k, ["--backend", a.backend, "--search", "brute_force", "--no-seeds", *limit], env, probe, a.kt
                )
        else:
            try:
                cache = recorded_cache(kernel)
            except SystemExit as e:
                failed.append(f"{Path(kernel).stem}: {e}")
                continue
            sides = {
                "kt-tui": lambda k=kernel: kt_tui(k, ["--backend", "sim", *limit], env),
                "kernel_tuner sim": lambda k=kernel, c=cache: plain(k, ["--sim", c, *limit], env),
            }
        for i in range(a.repeat):
            if not deadline.allows():
                break
            pair = []
            for name in list(sides) if i % 2 == 0 else list(reversed(sides)):
                try:
                    pair.append({"kernel": Path(kernel).stem, "tool": name, "round": i, **sides[name]()})
                except RunFailed as e:
                    print(e, file=sys.stderr)
                    failed.append(f"{Path(kernel).stem} {name}: {str(e).splitlines()[0][:200]}")
                    pair = []
                    break
            deadline.ran(sum(r["seconds"] for r in pair))
            rows += pair
    lines = [
        f"# {'GPU (' + a.backend + ')' if a.gpu else 'simulation'}, median of {a.repeat}; {machine()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f"{'; at most ' + str(a.max_configs) + ' configurations' if a.max_configs else ''}{deadline.note()}"
        f"{'; backend probe remembered' if probe else ''}{'; warmed up (bytecode, one untimed run)' if a.warmup else ''}",
        f"kt-tui --help: {statistics.median(help_s):.3f} s",
        f"{'kernel':12} {'configs':>7} {'kt-tui s':>9} {'first result s':>14} {'first tuned s':>13} "
        f"{'kernel_tuner s':>14} {'ratio':>6}"
        + (f" {'other s':>8} {'other first':>11} {'other tuned':>11} {'ratio':>6}" if a.kt else "")
        + "  target",
    ]
    target = "<= 1.1, first tuned <= 2 s" if a.gpu else "<= 1.5"
    for kernel in a.kernels:
        stem = Path(kernel).stem
        kt = [r for r in rows if r["kernel"] == stem and r["tool"] == "kt-tui"]
        mine = [r for r in rows if r["kernel"] == stem and r["tool"] == "kt-tui@other"]
        other = [r for r in rows if r["kernel"] == stem and not r["tool"].startswith("kt-tui")]
        if not kt or not other:
            lines.append(f"{stem:12} not measured (failed or past the deadline)")
            continue
        kt_s, other_s = statistics.median(r["seconds"] for r in kt), statistics.median(r["seconds"] for r in other)
        row = (
            f"{stem:12} {kt[0]['configs']:7d} {kt_s:9.2f} {_median(kt, 'first_result_s'):14.2f} "
            f"{_median(kt, 'first_tuned_s'):13.2f} {other_s:14.2f} {kt_s / other_s:6.2f}"
        )
        if a.kt:
            m_s = statistics.median(r["seconds"] for r in mine) if mine else float("nan")
            row += (
                f" {m_s:8.2f} {_median(mine, 'first_result_s'):11.2f} {_median(mine, 'first_tuned_s'):11.2f}"
                f" {m_s / other_s:6.2f}"
            )
        lines.append(f"{row}  {target}")
    lines += [f"FAILED {f}" for f in failed]
    for kernel in a.kernels:
        kt = sorted(
            (r for r in rows if r["kernel"] == Path(kernel).stem and r["tool"] == "kt-tui"), key=lambda r: r["seconds"]
        )
        if kt:
            lines += [
                f"where the time to the first result went ({Path(kernel).stem}, kt-tui's median run, "
                f"{kt[len(kt) // 2]['seconds']:.2f} s in all):",
                *first_result_steps(kt[len(kt) // 2]),
            ]
    table = "\n".join(lines)
    print(table)
    if a.out:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        name = f"overhead-{'gpu-' + a.backend if a.gpu else 'sim'}"
        (out / f"{name}.txt").write_text(table + "\n")
        (out / f"{name}.json").write_text(json.dumps(rows, indent=1))


def timed_lines(cmd: list[str], env: dict) -> tuple[float, float, int]:
    """(first line of output, exit) in seconds after start, and the exit status."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    first = None
    for _ in proc.stdout:
        first = first if first is not None else time.perf_counter() - t0
    proc.wait()
    return first if first is not None else float("nan"), time.perf_counter() - t0, proc.returncode


def resume_table(n: int, repeat: int, out: str | None) -> None:
    from benchmarks.tui import fill

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp)
        os.environ.update(KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp)
        made = Path(tmp) / "made.db"
        sid = fill(made, n)
        db = Path(tmp) / "s.db"
        cmd = [sys.executable, "-m", "kt_tui", "resume", sid, "--auto", "--json", "--db", str(db), "--backend", "sim"]
        rows = {"work left (the recorded sweep to replay)": [], "finished (nothing to run)": []}
        for _ in range(repeat):
            for f in Path(tmp).glob("s.db*"):
                f.unlink()
            shutil.copy(made, db)
            for case in rows:  # the first resume runs the sweep, the second finds the session finished
                first, end, code = timed_lines(cmd, env)
                if code != 0:
                    raise SystemExit(f"kt-tui resume failed (exit {code}): {case}")
                rows[case].append((first, end))
    lines = [
        f"# kt-tui resume ID --auto of a session of {n} results, median of {repeat}; {machine()}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"{'session':44} {'first line s':>12} {'exit s':>8}  target",
    ]
    for case, got in rows.items():
        lines.append(
            f"{case:44} {statistics.median(f for f, _ in got):12.3f} "
            f"{statistics.median(e for _, e in got):8.3f}  first line <= 1 s"
        )
    table = "\n".join(lines)
    print(table)
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / "overhead-resume.txt").write_text(table + "\n")


if __name__ == "__main__":
    main()
