"""`kt-tui import` on every example script of a kernel_tuner checkout (issue 21, "Done when").

For each script of examples/cuda and examples/cuda-c++ (copied to a scratch folder, since scripts
write files beside themselves), `kt-tui import` runs and the script is put in one of:
  faithful   every call imported, nothing of it left out (notes may say what kt-tui checks)
  lossy      imported, with a note for what could not be kept (a check, a metric, a call, ...)
  refused    nothing imported; the reason is printed
A summary counts them. kt-tui's repository keeps no copy of these scripts: pass the checkout.

--gpu (on a GPU machine) also runs, per imported kernel,
  kt-tui run DIR/KERNEL.cu --auto --json --backend pycuda --search brute_force --no-seeds [--max-configs N]
and then the script itself with kernel_tuner's real tune_kernel over exactly the configurations kt-tui
ran (a strategy that runs that list), recording per configuration whether kernel_tuner's own answer
check (the script's `answer` / `verify`) passed, without letting a failure abort the tune. Per kernel:
kt-tui's verdicts (verified / wrong / unverified) beside kernel_tuner's (pass / fail / unchecked), and
"silently wrong": configurations kt-tui calls verified where kernel_tuner's check fails, or wrong
where it passes. Where the script passes no answer, kernel_tuner checked nothing: kt-tui's "wrong"
verdicts there are listed as "to inspect" (nothing to compare them with), not counted as silent.

usage: python benchmarks/imports.py --kt PATH/kernel_tuner [--out FILE] [SCRIPT ...]
       python benchmarks/imports.py --kt PATH/kernel_tuner --gpu [--max-configs 50] [--timeout 240] [--budget S]
           --out FILE [SCRIPT ...]
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
sys.path.insert(0, str(ROOT))

RECORDER = r"""
import json, runpy, sys
import numpy as np
import kernel_tuner, kernel_tuner.core, kernel_tuner.interface
from kt_tui.gpu.device.lang import cuda_lang
script, out, plan_file, backend = sys.argv[1:5]
plan = {int(k): v for k, v in json.load(open(plan_file)).items()}  # call index -> [params, ...]
real, default_verify = kernel_tuner.interface.tune_kernel, kernel_tuner.core._default_verify_function
calls, state = [], {"call": -1, "config": None}

def save():
    json.dump(calls, open(out, "w"))

class Listed:
    # runs exactly kt-tui's configurations, one at a time, so a check is known per configuration
    def __init__(self, configs):
        self.configs = configs
    def tune(self, searchspace, runner, tuning_options):
        results = []
        for c in self.configs:
            state["config"] = json.dumps(c, sort_keys=True)
            names = list(tuning_options.tune_params)
            results += runner.run([tuple(c[k] for k in names)], tuning_options)
        return results

def checked(fn, *a, **kw):
    try:
        return fn(*a, **kw)
    except Exception:  # kernel_tuner's check raised: it did not pass
        return False

def record(ok):
    calls[-1]["checks"][state["config"]] = bool(ok)
    return True  # never abort kernel_tuner's tune: the verdict is recorded

def recorded(*args, **kw):
    state["call"] += 1
    index = state["call"]
    calls.append({"call": index, "checks": {}, "answer": kw.get("answer") is not None, "configs": 0})
    save()
    if index not in plan:
        return [], {}
    kw["strategy"] = Listed(plan[index])
    kw.pop("strategy_options", None)
    verify = kw.get("verify")
    if verify is not None:
        kw["verify"] = lambda answer, result, atol=None: record(checked(verify, answer, result, atol=atol))
    kernel_tuner.core._default_verify_function = lambda *a: record(checked(default_verify, *a))
    lang = kw.get("lang")
    cuda = str(lang or "CUDA").upper() in ("CUDA", "CUPY", "NVCUDA", "PYCUDA")
    try:
        if cuda:
            with cuda_lang(backend) as kw["lang"]:
                results, env = real(*args, **kw)
        else:
            results, env = real(*args, **kw)
    finally:
        kernel_tuner.core._default_verify_function = default_verify
    calls[-1]["configs"] = len(results)
    save()
    if index >= max(plan):
        raise SystemExit(0)
    return results, env

real_run = kernel_tuner.interface.run_kernel

def ran(*args, **kw):
    # run_kernel calls are calls too: kt-tui's import numbers tune_kernel and run_kernel calls together
    state["call"] += 1
    calls.append({"call": state["call"], "checks": {}, "answer": False, "configs": 0, "run_kernel": True})
    save()
    if str(kw.get("lang") or "CUDA").upper() in ("CUDA", "CUPY", "NVCUDA", "PYCUDA"):
        with cuda_lang(backend) as kw["lang"]:  # the same backend as the tune_kernel calls
            return real_run(*args, **kw)
    return real_run(*args, **kw)

kernel_tuner.tune_kernel = kernel_tuner.interface.tune_kernel = recorded
kernel_tuner.run_kernel = kernel_tuner.interface.run_kernel = ran
sys.argv = [script]
runpy.run_path(script, run_name="__main__")
"""


def scripts(kt: Path, names: list[str]) -> list[Path]:
    found = sorted((kt / "examples" / "cuda").glob("*.py")) + sorted((kt / "examples" / "cuda-c++").glob("*.py"))
    return [p for p in found if not names or p.stem in names or f"{p.parent.name}/{p.stem}" in names]


def import_one(script: Path, work: Path, timeout: float) -> dict:
    """The import's outcome for one script, in a copy of its folder."""
    from kt_tui.importer.run import ImportFailed, import_script

    folder = work / f"{script.parent.name}-{script.stem}"
    shutil.copytree(script.parent, folder)
    t0 = time.perf_counter()
    try:
        done, problems, notes = import_script(folder / script.name, folder / "kt_import", timeout_s=timeout)
    except ImportFailed as e:
        return {
            "script": f"{script.parent.name}/{script.name}",
            "status": "refused",
            "kernels": [],
            "why": [str(e).replace(str(folder) + "/", "")],
            "seconds": time.perf_counter() - t0,
        }
    losses = [f"{d.kernel}: {n}" for d in done for n in d.losses] + [f"not imported: {p}" for p in problems]
    status = "refused" if not done else "lossy" if losses else "faithful"
    return {
        "script": f"{script.parent.name}/{script.name}",
        "status": status,
        "kernels": done,
        "why": losses,
        "notes": [f"{d.kernel}: {n}" for d in done for n in d.notes] + notes,
        "folder": folder,
        "seconds": time.perf_counter() - t0,
    }


def run_kt(kernel: Path, cap: int, timeout: float, db: Path, backend: str) -> dict:
    from kt_tui.store import Store

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
    ] + (["--max-configs", str(cap)] if cap else [])
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        summary = json.loads(proc.stdout[proc.stdout.index("{") :])
    except (subprocess.TimeoutExpired, ValueError) as e:
        return {"state": f"failed: {type(e).__name__}", "verdicts": {}}
    if summary.get("state") == "failed" and summary.get("error"):
        summary["state"] = f"failed: {str(summary['error'])[:160]}"
    rows = Store(db).results(summary["session"]) if summary.get("session") else []
    verdicts = {}
    for r in rows:  # records.Result, read by attribute
        if r.status not in ("ok", "wrong_result"):
            continue
        verdicts[json.dumps(dict(r.params), sort_keys=True)] = (
            "wrong" if r.status == "wrong_result" or r.verified is False else "verified" if r.verified else "unverified"
        )
    return {"state": summary.get("state"), "verdicts": verdicts, "unverified": summary.get("unverified")}


def run_kernel_tuner(row: dict, plan: dict, timeout: float, backend: str) -> dict:
    folder, script = row["folder"], row["script"].split("/")[1]
    out, plan_file = folder / "kt_calls.json", folder / "kt_plan.json"
    plan_file.write_text(json.dumps(plan))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    try:
        proc = subprocess.run(
            [sys.executable, "-c", RECORDER, script, str(out), str(plan_file), backend],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
        state = (
            "ok"
            if proc.returncode == 0
            else f"exit {proc.returncode}: {(proc.stderr.strip().splitlines() or [''])[-1][:100]}"
        )
    except subprocess.TimeoutExpired:
        state = f"timeout after {timeout:g} s"
    return {"state": state, "calls": {c["call"]: c for c in (json.loads(out.read_text()) if out.exists() else [])}}


def compare(kt: dict, call: dict) -> dict:
    counts = {
        "verified": 0,
        "wrong": 0,
        "unverified": 0,
        "pass": 0,
        "fail": 0,
        "unchecked": 0,
        "silent": 0,
        "inspect": 0,
    }
    for config, verdict in kt["verdicts"].items():
        counts[verdict] += 1
        check = call.get("checks", {}).get(config) if call.get("answer") else None
        counts["unchecked" if check is None else "pass" if check else "fail"] += 1
        if (verdict == "verified" and check is False) or (verdict == "wrong" and check is True):
            counts["silent"] += 1
        if verdict == "wrong" and check is None:
            counts["inspect"] += 1
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="script names (default: all of examples/cuda and examples/cuda-c++)")
    ap.add_argument("--kt", required=True, help="a kernel_tuner checkout (its examples/ are read, never changed)")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--timeout", type=float, default=240, help="seconds per import and per tool run")
    ap.add_argument("--gpu", action="store_true", help="also run each import and kernel_tuner on the GPU")
    ap.add_argument("--max-configs", type=int, default=50, help="--gpu: configurations per kernel (0: whole spaces)")
    ap.add_argument("--backend", default="pycuda")
    ap.add_argument(
        "--budget",
        type=float,
        default=0,
        help="--gpu: start no new script after this many seconds (0: no limit); the skipped ones are named",
    )
    a = ap.parse_args(argv)
    kt = Path(a.kt)
    if not (kt / "examples" / "cuda").is_dir():
        print(f"imports.py: --kt {kt}: no examples/cuda folder there", file=sys.stderr)
        return 2
    lines = Lines(a.out)
    with tempfile.TemporaryDirectory(prefix="kt-imports-") as tmp:
        rows = []
        for s in scripts(kt, a.names):
            r = import_one(s, Path(tmp), a.timeout)
            rows.append(r)
            lines.append(f"{r['script']}: {r['status']} ({len(r['kernels'])} kernel(s), {r['seconds']:.1f} s)")
            lines += [f"    - {w}" for w in r["why"]]
        count = {s: sum(r["status"] == s for r in rows) for s in ("faithful", "lossy", "refused")}
        lines.append(
            f"\n{len(rows)} scripts: {count['faithful']} faithful, {count['lossy']} lossy with a note, "
            f"{count['refused']} refused with a reason"
        )
        if a.gpu:
            gpu_table(rows, a, lines)
    return 0


class Lines(list):
    """The table's lines, printed and written to --out as they come (a run cut short keeps its rows)."""

    def __init__(self, out: str | None):
        super().__init__()
        self.out = Path(out) if out else None
        if self.out:
            self.out.write_text("")

    def append(self, line: str) -> None:
        super().append(line)
        print(line, flush=True)
        if self.out:
            with self.out.open("a") as f:
                f.write(line + "\n")

    def __iadd__(self, more):
        for line in more:
            self.append(line)
        return self


def gpu_table(rows: list[dict], a, out: Lines) -> None:
    cap = (
        f"capped at the first {a.max_configs} configurations of brute-force order per kernel"
        if a.max_configs
        else "whole spaces"
    )
    out += [
        "",
        f"GPU: kt-tui run --backend {a.backend} --search brute_force --no-seeds, {cap}; kernel_tuner over "
        "the same configurations",
        "",
        "| kernel | kt-tui verified / wrong / unverified | kernel_tuner pass / fail / unchecked | silently wrong | "
        "kt wrong, kernel_tuner unchecked (to inspect) | state |",
        "|---|---|---|---|---|---|",
    ]
    silent, started = 0, time.perf_counter()
    for r in rows:
        if not r["kernels"]:
            continue
        if a.budget and time.perf_counter() - started > a.budget:
            out.append(f"| {r['script']} | - | - | - | - | skipped: over the {a.budget:g} s budget |")
            continue
        try:
            silent += gpu_rows(r, a, out)
        except Exception as e:  # noqa: BLE001 - one script's failure is its row; the others go on
            import traceback

            where = traceback.extract_tb(e.__traceback__)[-1]
            out.append(
                f"| {r['script']} | - | - | - | - | benchmark error: {type(e).__name__}: {e} "
                f"({Path(where.filename).name}:{where.lineno}) |"
            )
    out.append(f"\nsilently wrong configurations in all: {silent}")


def gpu_rows(r: dict, a, out: Lines) -> int:
    """One script's rows: kt-tui's runs of its kernels, then kernel_tuner over the same configurations."""
    silent = 0
    kt_runs = {}
    for i, k in enumerate(r["kernels"]):
        kt_runs[k.call] = (
            k,
            run_kt(k.kernel_path, a.max_configs, a.timeout, r["folder"] / f"kt-{i}.db", a.backend),
        )
    plan = {c: [json.loads(p) for p in run["verdicts"]] for c, (_, run) in kt_runs.items() if run["verdicts"]}
    ktuner = run_kernel_tuner(r, plan, a.timeout, a.backend) if plan else {"state": "nothing to run", "calls": {}}
    for c, (k, run) in kt_runs.items():
        n = compare(run, ktuner["calls"].get(c, {}))
        silent += n["silent"]
        out.append(
            f"| {r['script']}: {k.kernel_path.name} | {n['verified']} / {n['wrong']} / {n['unverified']} | "
            f"{n['pass']} / {n['fail']} / {n['unchecked']} | {n['silent']} | {n['inspect']} | "
            f"kt-tui {run['state']}; kernel_tuner {ktuner['state']} |"
        )
    return silent


if __name__ == "__main__":
    sys.exit(main())
