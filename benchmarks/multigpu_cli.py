"""Whole CLI sessions on one GPU against several, the way users run them.

Each session is `kt-tui run KERNEL --auto --json --backend B --search brute_force [--max-configs N]`
started as a fresh process, timed from start to exit, once with `--gpus 1`, once with `--gpus N`
and, with --ray ADDRESS, once on that Ray cluster. The store of each session is read back to count
what was measured (lost or duplicated configurations), stdout must parse as one JSON document, and
the KT_TUI_TRACE marks say where the time went before the first result.

usage: python benchmarks/multigpu_cli.py [--kernel PATH.cu] [--configs 300,all] [--gpus 2]
                                         [--ray ADDRESS] [--backend pycuda] [--out FILE.json]
                                         [--llm-session DIR]   (an LLM session from tests/scripted/)
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kt_tui.gpu.timeline import read as read_trace  # noqa: E402

TRACES = os.environ.get("KT_TUI_BENCH_TRACES")  # a folder: each session's whole trace is copied there


def session(argv: list[str], tmp: str, label: str, timeout: float, script: str | None = None) -> dict:
    db = f"{tmp}/{label}.sqlite"
    trace = f"{tmp}/{label}.trace"
    # one data dir for all: the backend probe is remembered there after the warm-up, as on a user's machine
    env = dict(
        os.environ,
        KT_TUI_DB=db,
        KT_TUI_DATA_DIR=f"{tmp}/data",
        KT_TUI_CONFIG_DIR=f"{tmp}/cfg",
        KT_TUI_TRACE=trace,
        PYTHONUNBUFFERED="1",
    )
    started = time.time()
    # an LLM session talks to the test suite's scripted server (scripted replies, not a model's output)
    head = [sys.executable, "scripts/scripted_session.py", script] if script else [sys.executable, "-m", "kt_tui"]
    proc = subprocess.Popen(
        [*head, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )
    lines: list[tuple[float, str]] = []
    first_result = None
    assert proc.stderr is not None
    watchdog = threading.Timer(timeout, proc.kill)  # a session that does not end is a row of its own
    watchdog.start()
    for line in proc.stderr:
        t = time.time() - started
        lines.append((round(t, 3), line.rstrip()))
        if first_result is None and line.startswith("[1] "):
            first_result = t
    out = proc.stdout.read() if proc.stdout else ""
    proc.wait()
    watchdog.cancel()
    wall = time.time() - started
    try:
        doc = json.loads(out)
        parses = True
    except ValueError:
        doc, parses = {}, False
    row = {
        "label": label,
        "argv": argv,
        "rc": proc.returncode,
        "wall_s": round(wall, 2),
        "json_parses": parses,
        "first_result_s": round(first_result, 2) if first_result else None,
        "state": doc.get("state"),
        "error": doc.get("error"),
        "best": doc.get("best"),
        "stdout_head": out[:300] if not parses else None,
    }
    row.update(counts(db))
    row["duplicated"] = streamed_twice([s for _, s in lines])
    row["configs_per_s"] = round(row["measured"] / wall, 2) if wall else None
    marks = read_trace(trace)
    if TRACES and os.path.exists(trace):  # the whole trace, where the row keeps its first 80 marks
        Path(TRACES).mkdir(parents=True, exist_ok=True)
        Path(TRACES, f"{label}.trace").write_bytes(Path(trace).read_bytes())
    row.update(compile_waits(marks))
    if marks:
        t0 = marks[0][0]
        row["trace"] = [f"{t - t0:7.2f} {pid} {step}" for t, pid, step in marks][:80]
    row["stderr_tail"] = [f"{t:7.2f} {s}" for t, s in lines if not s.startswith("[")][-25:]
    return row


def compile_waits(marks: list[tuple[float, int, str]]) -> dict:
    """How long the GPUs waited on compile-ahead in the session (each worker marks it per run), per
    worker process, and the shared pool's numbers where one served several GPUs."""
    per: collections.Counter = collections.Counter()
    loading = 0.0
    failed = 0
    plan = None
    for _, pid, step in marks:
        if step.startswith("worker: compile waits "):
            per[pid] += float(step.split()[3])
            if "(" in step:  # "(N failed ahead, M not ahead)": compiled again in the measuring process
                failed += int(step.split("(", 1)[1].split()[0])
            if " s of them loading" in step:
                loading += float(step.split(" s of them loading")[0].rsplit(", ", 1)[1])
        elif step.startswith("main: compile-ahead: "):
            plan = step[len("main: ") :]
    return {
        "gpu_waited_on_compile_s": round(sum(per.values()), 2),
        "of_it_loading_s": round(loading, 2),
        "compile_waits_by_worker": {str(k): round(v, 2) for k, v in per.items()},
        "compile_pool": plan,
        "compiles_failed_ahead": failed,
    }


def counts(db: str) -> dict:
    if not os.path.exists(db):
        return {"measured": 0, "lost": None, "duplicated": None}
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT version, key, status, worker FROM results").fetchall()
    except sqlite3.Error as e:
        return {"measured": 0, "lost": None, "duplicated": None, "db_error": str(e)}
    per = collections.Counter((r[0], r[1]) for r in rows)
    workers = collections.Counter(r[3] or "local" for r in rows)
    statuses = collections.Counter(r[2] for r in rows)
    return {"measured": len(per), "workers": dict(workers), "statuses": dict(statuses)}


def streamed_twice(lines: list[str]) -> int:
    """Configurations the progress lines show twice within one run (a re-measure is a run of its own)."""
    run, seen, twice = "", collections.Counter(), 0
    for line in lines:
        if line.startswith("run ") and " configurations on " in line:
            run = line.split(":", 1)[0] if line.count(":") == 1 else line[4 : line.index(": ")]
        elif line.startswith("[") and "] " in line:
            key = line.split("] ", 1)[1].split()[0]
            seen[(run, key)] += 1
            twice += seen[(run, key)] == 2
    return twice


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default=str(ROOT / "benchmarks/spaces/matmul_tiled.cu"))
    ap.add_argument("--configs", default="300,all", help="budgets, comma separated ('all' = the whole space)")
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--ray", dest="ray_address")
    ap.add_argument("--backend", default="pycuda")
    ap.add_argument(
        "--llm-session",
        metavar="SCRIPT.json:STRATEGY:KERNEL.cu",
        help="also an LLM session: scripted replies, e.g. tests/scripted/matmul.json:autonomous:examples/matmul.cu",
    )
    ap.add_argument("--timeout", type=float, default=540)
    ap.add_argument("--out")
    args = ap.parse_args()
    gpu = "unknown"
    try:
        gpu = (
            subprocess.run(
                ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=20
            )
            .stdout.strip()
            .replace("\n", " + ")
        )
    except (OSError, subprocess.SubprocessError):
        pass
    rows = []
    plans = []
    for budget in args.configs.split(","):
        base = ["run", args.kernel, "--auto", "--json", "--backend", args.backend, "--search", "brute_force"]
        plans.append((budget, base + ([] if budget == "all" else ["--max-configs", budget]), None))
    if args.llm_session:
        script, strategy, kernel = args.llm_session.split(":")
        plans.append(
            ("llm", ["run", kernel, "--auto", "--json", "--backend", args.backend, "--strategy", strategy], script)
        )
    with tempfile.TemporaryDirectory() as tmp:
        warm = session(
            ["run", args.kernel, "--auto", "--json", "--backend", args.backend, "--max-configs", "1"],
            tmp,
            "warm-up",
            args.timeout,
        )
        print(f"warm-up (probe remembered): rc {warm['rc']} wall {warm['wall_s']} s", flush=True)
        for budget, base, script in plans:
            runs = [("gpus", ["--gpus", "1"], 1), ("gpus", ["--gpus", str(args.gpus)], args.gpus)]
            if args.ray_address:
                runs.append(("ray", ["--ray", args.ray_address], args.gpus))
            one = None
            for via, extra, n in runs:
                label = f"{budget}-{via}{n}"
                row = session(base + extra, tmp, label, args.timeout, script)
                row.update(via=via, gpus=n, configs=budget)
                if n == 1:
                    one = row
                row["ratio"] = (
                    round(row["configs_per_s"] / one["configs_per_s"], 2)
                    if one and one.get("configs_per_s") and row.get("configs_per_s")
                    else None
                )
                row["wall_ratio"] = round(row["wall_s"] / one["wall_s"], 2) if one and one["wall_s"] else None
                row["same_best"] = bool(
                    one
                    and row.get("best")
                    and one.get("best")
                    and row["best"].get("params") == one["best"].get("params")
                )
                row["lost"] = max(0, one["measured"] - row["measured"]) if one and budget != "llm" else None
                rows.append(row)
                if args.out:  # each session as it ends: a run cut short keeps what it measured
                    doc = {"gpu": gpu, "date": time.strftime("%Y-%m-%d"), "host_cpus": os.cpu_count(), "sessions": rows}
                    Path(args.out).write_text(json.dumps(doc, indent=1))
                print(
                    f"{label:>14}: rc {row['rc']} wall {row['wall_s']:7.2f} s  measured {row['measured']:4}  "
                    f"{row['configs_per_s'] or 0:6.2f}/s  ratio {row['ratio']}  wall ratio {row['wall_ratio']}  "
                    f"first {row['first_result_s']}  json {row['json_parses']}  dup {row['duplicated']}  "
                    f"GPU waited on compile {row['gpu_waited_on_compile_s']} s ({row.get('of_it_loading_s')} s loading)  "
                    f"best {(row.get('best') or {}).get('params')} {(row.get('best') or {}).get('time_ms')}",
                    flush=True,
                )
    doc = {"gpu": gpu, "date": time.strftime("%Y-%m-%d"), "host_cpus": os.cpu_count(), "sessions": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
