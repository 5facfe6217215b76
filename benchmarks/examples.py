"""kernel_tuner's CUDA examples, run by kernel_tuner itself and through kt-tui (issue 12, "Done when").

For each example script in tests/fixtures/kernel_tuner_examples/ (kt-tui's own scripts in kernel_tuner's
style; benchmarks/imports.py takes kernel_tuner's own from a checkout), copied to a scratch folder,
since the scripts write files beside themselves:

  (a) kernel_tuner: the script runs as `python SCRIPT.py` in a fresh process whose tune_kernel is
      the real one behind a recorder: each call's configurations and best time go to a JSON file.
      With a cap, each call runs the first N configurations of kernel_tuner's brute-force order
      (a strategy object over its own Searchspace.sorted_list()), and the script is stopped after
      the calls that kt-tui imported.
  (b) kt-tui: `kt-tui import SCRIPT.py`, then for each kernel, in a fresh process,
      `kt-tui run KERNEL.cu --auto --json --backend B --search brute_force --no-seeds [--max-configs N]`;
      its results' verification verdicts are read from the session database.

Prints one table and writes it to --out DIR/examples-<backend>.txt. Each tool gets --timeout seconds
per example, and the whole run stops starting new work after --budget seconds, so it finishes
within 9 minutes on one H100; what was capped or cut is said in the table.

usage (on a GPU machine): python benchmarks/examples.py --out benchmarks/results [--backend pycuda]
       [--max-configs 25] [--timeout 60] [--budget 420] [EXAMPLE ...]
       python benchmarks/examples.py --dry-run --out DIR     (no GPU: imports and checks every example)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "kernel_tuner_examples"
sys.path.insert(0, str(ROOT))

RECORDER = r"""
import contextlib, json, runpy, sys, time
import kernel_tuner, kernel_tuner.interface
from kt_tui.gpu.device.lang import cuda_lang
script, out, cap, calls_wanted, lang = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
real = kernel_tuner.interface.tune_kernel
calls = []

class FirstN:
    # kernel_tuner's brute force, stopped after the first `cap` configurations of its own order
    def tune(self, searchspace, runner, tuning_options):
        return runner.run(searchspace.sorted_list()[:cap], tuning_options)

def save():
    with open(out, "w") as f:
        json.dump(calls, f)

def recorded(*args, **kw):
    # the backend kt-tui measures with (timings compare only on one backend), with lang "CUDA" as the
    # script says: under lang="pycuda" kernel_tuner 1.5.0 prepares kernels differently (kt_tui/gpu/device/lang.py)
    same = lang and str(kw.get("lang") or "CUDA").upper() == "CUDA"
    if cap:
        kw["strategy"] = FirstN()
    t0 = time.perf_counter()
    with (cuda_lang(lang) if same else contextlib.nullcontext(kw.get("lang"))) as kw["lang"]:
        results, env = real(*args, **kw)
    ok = [r for r in results if isinstance(r.get("time"), (int, float)) and "__error__" not in r]
    calls.append({"configs": len(results), "ok": len(ok), "best_ms": min((r["time"] for r in ok), default=None),
                  "seconds": time.perf_counter() - t0})
    save()
    if calls_wanted and len(calls) >= calls_wanted:
        raise SystemExit(0)
    return results, env

kernel_tuner.tune_kernel = kernel_tuner.interface.tune_kernel = recorded
save()
sys.argv = [script]
runpy.run_path(script, run_name="__main__")
"""


def run_kernel_tuner(script: Path, cap: int, calls: int, timeout: float, lang: str = "") -> dict:
    out = script.with_suffix(".kt_calls.json")
    t0 = time.perf_counter()
    try:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        proc = subprocess.run(
            [sys.executable, "-c", RECORDER, script.name, str(out), str(cap), str(calls), lang],
            cwd=script.parent,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
        state = "ok" if proc.returncode == 0 else f"exit {proc.returncode}: {_tail(proc.stderr)}"
    except subprocess.TimeoutExpired:
        state = f"timeout after {timeout:g} s"
    wall = time.perf_counter() - t0
    recorded = json.loads(out.read_text()) if out.exists() else []
    return {"calls": recorded, "wall": wall, "state": state}


def run_kt(kernel: Path, backend: str, cap: int, timeout: float, db: Path) -> dict:
    cmd = [
        sys.executable,
        "-m",
        "kt_tui",
        "run",
        str(kernel),
        "--auto",
        "--json",
        "--backend",
        backend,
        "--search",
        "brute_force",
        "--no-seeds",
        "--db",
        str(db),
    ]
    if cap:
        cmd += ["--max-configs", str(cap)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {
            "wall": time.perf_counter() - t0,
            "state": f"timeout after {timeout:g} s",
            "summary": {},
            "verdicts": {},
        }
    wall = time.perf_counter() - t0
    try:
        summary = json.loads(proc.stdout[proc.stdout.index("{") :])
    except ValueError:
        return {
            "wall": wall,
            "state": f"exit {proc.returncode}: {_tail(proc.stderr or proc.stdout)}",
            "summary": {},
            "verdicts": {},
        }
    state = summary.get("state") or f"exit {proc.returncode}"
    if summary.get("error"):
        state += f" ({_tail(str(summary['error']))})"
    return {"wall": wall, "state": state, "summary": summary, "verdicts": verdicts(db, summary.get("session"))}


def verdicts(db: Path, sid: str | None) -> dict:
    """How many measured configurations were verified, wrong or unverified."""
    from kt_tui.store import Store

    if not sid or not db.exists():
        return {}
    rows = Store(db).results(sid)
    out = {"verified": 0, "wrong": 0, "unverified": 0}
    for r in rows:
        if r.get("status") == "wrong_result" or r.get("verified") is False or r.get("verified") == 0:
            out["wrong"] += 1
        elif r.get("verified") in (True, 1):
            out["verified"] += 1
        elif r.get("status") == "ok":
            out["unverified"] += 1
    return out


def import_example(script: Path, out: Path) -> tuple[list, list[str]]:
    from kt_tui.importer.run import ImportFailed, import_script

    try:
        kernels, problems, _ = import_script(script, out)
    except ImportFailed as e:
        return [], [str(e)]
    return kernels, problems


def check(kernel: Path) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "kt_tui", "spec", str(kernel), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return "spec ok" if proc.returncode == 0 else f"check failed: {_tail(proc.stderr or proc.stdout)}"


def _tail(text: str) -> str:
    lines = [x.strip() for x in (text or "").strip().splitlines() if x.strip()]
    return lines[-1][:120] if lines else "no output"


def _num(v, fmt="{:.4g}") -> str:
    return "-" if v is None else fmt.format(v)


def table(rows: list[dict], head: str) -> str:
    cols = [
        "kernel",
        "configs kt / ktuner",
        "best ms kt / ktuner",
        "wall s kt / ktuner",
        "verified / wrong / unverified",
        "state",
    ]
    lines = [head, "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(c, "")) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def left(a, started: float) -> float:
    """This run's timeout: --timeout, less near the end of the budget (a minute past it at most)."""
    return max(5.0, min(a.timeout, a.budget + 60 - (time.perf_counter() - started)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("examples", nargs="*", help="example names (default: every script in the fixtures)")
    ap.add_argument("--out", required=True, help="folder the table is written to")
    ap.add_argument("--backend", default="pycuda")
    ap.add_argument("--max-configs", type=int, default=25, help="configurations per kernel, both tools (0: all)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per example and tool")
    ap.add_argument(
        "--budget",
        type=float,
        default=420,
        help="no new work after this many seconds; nothing runs past it by more than a minute",
    )
    ap.add_argument("--dry-run", action="store_true", help="only import and check (no GPU)")
    a = ap.parse_args(argv)
    if a.max_configs < 0 or a.timeout <= 0 or a.budget <= 0:
        print("examples.py: --max-configs must be >= 0, --timeout and --budget > 0", file=sys.stderr)
        return 2
    names = a.examples or sorted(p.stem for p in FIXTURES.glob("*.py"))
    missing = [n for n in names if not (FIXTURES / f"{n}.py").exists()]
    if missing:
        print(f"examples.py: no example {missing[0]!r} in {FIXTURES}", file=sys.stderr)
        return 2
    os.environ["CUDA_CACHE_DISABLE"] = "1"  # neither tool gets the other's JIT cache
    started, rows = time.perf_counter(), []
    with tempfile.TemporaryDirectory(prefix="kt-examples-") as tmp:
        work = Path(shutil.copytree(FIXTURES, Path(tmp) / "ex"))
        for name in names:
            script = work / f"{name}.py"
            kernels, problems = import_example(script, work / f"{name}_kt")
            if not kernels:
                rows.append({"kernel": name, "state": "import failed: " + "; ".join(problems)[:120]})
                continue
            late = time.perf_counter() - started > a.budget
            kt_side = (
                None
                if (a.dry_run or late)
                else run_kernel_tuner(script, a.max_configs, len(kernels), left(a, started), a.backend)
            )
            for i, k in enumerate(kernels):
                row = {"kernel": f"{name}: {k.kernel_path.name}"}
                if a.dry_run:
                    row["state"] = "dry run: " + check(k.kernel_path)
                elif late or time.perf_counter() - started > a.budget:
                    row["state"] = f"skipped: over the {a.budget:g} s budget"
                else:
                    kt = run_kt(k.kernel_path, a.backend, a.max_configs, left(a, started), Path(tmp) / f"{name}-{i}.db")
                    call = kt_side["calls"][i] if i < len(kt_side["calls"]) else {}
                    s, v = kt["summary"], kt["verdicts"]
                    row.update(
                        {
                            "configs kt / ktuner": f"{_num(s.get('results'), '{}')} / {_num(call.get('configs'), '{}')}",
                            "best ms kt / ktuner": f"{_num((s.get('best') or {}).get('time_ms'))} / {_num(call.get('best_ms'))}",
                            "wall s kt / ktuner": f"{kt['wall']:.1f} / {_num(call.get('seconds'), '{:.1f}')} "
                            f"(script {kt_side['wall']:.1f})",
                            "verified / wrong / unverified": f"{v.get('verified', '-')} / {v.get('wrong', '-')} / "
                            f"{v.get('unverified', '-')}",
                            "state": f"kt {kt['state']}; kernel_tuner {kt_side['state']}",
                        }
                    )
                rows.append(row)
    cap = (
        f"capped at the first {a.max_configs} configurations of brute-force order per kernel, both tools"
        if a.max_configs
        else "whole spaces"
    )
    head = (
        f"kernel_tuner examples, backend {a.backend}, {cap}; timeout {a.timeout:g} s per example and tool; "
        f"kt-tui counts its baseline and runs with --no-seeds; wall s: kt-tui's whole command / kernel_tuner's "
        f"tune_kernel call (and the whole script)" + (" (dry run: import and check only)" if a.dry_run else "")
    )
    text = table(rows, head)
    print(text)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"examples-{a.backend}{'-dry' if a.dry_run else ''}.txt").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
