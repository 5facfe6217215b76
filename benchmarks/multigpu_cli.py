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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kt_tui.gpu.timeline import read as read_trace  # noqa: E402


def session(argv: list[str], tmp: str, label: str, timeout: float) -> dict:
    db = f"{tmp}/{label}.sqlite"
    trace = f"{tmp}/{label}.trace"
    env = dict(os.environ, KT_TUI_DB=db, KT_TUI_DATA_DIR=f"{tmp}/{label}-data", KT_TUI_CONFIG_DIR=f"{tmp}/{label}-cfg",
               KT_TUI_TRACE=trace, PYTHONUNBUFFERED="1")
    started = time.time()
    proc = subprocess.Popen([sys.executable, "-m", "kt_tui", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=ROOT)
    lines: list[tuple[float, str]] = []
    first_result = None
    assert proc.stderr is not None
    for line in proc.stderr:
        t = time.time() - started
        lines.append((round(t, 3), line.rstrip()))
        if first_result is None and line.startswith("[1] "):
            first_result = t
    out = proc.stdout.read() if proc.stdout else ""
    proc.wait(timeout=timeout)
    wall = time.time() - started
    try:
        doc = json.loads(out)
        parses = True
    except ValueError:
        doc, parses = {}, False
    row = {"label": label, "argv": argv, "rc": proc.returncode, "wall_s": round(wall, 2), "json_parses": parses,
           "first_result_s": round(first_result, 2) if first_result else None, "state": doc.get("state"),
           "error": doc.get("error"), "best": doc.get("best"), "stdout_head": out[:300] if not parses else None}
    row.update(counts(db))
    row["configs_per_s"] = round(row["measured"] / wall, 2) if wall else None
    marks = read_trace(trace)
    if marks:
        t0 = marks[0][0]
        row["trace"] = [f"{t - t0:7.2f} {pid} {step}" for t, pid, step in marks][:80]
    row["stderr_tail"] = [f"{t:7.2f} {s}" for t, s in lines if not s.startswith("[")][-25:]
    return row


def counts(db: str) -> dict:
    if not os.path.exists(db):
        return {"measured": 0, "lost": None, "duplicated": None}
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT label, key, status, worker FROM results").fetchall()
    except sqlite3.Error as e:
        return {"measured": 0, "lost": None, "duplicated": None, "db_error": str(e)}
    per = collections.Counter((r[0], r[1]) for r in rows)
    dup = sum(1 for n in per.values() if n > 1)
    workers = collections.Counter(r[3] or "local" for r in rows)
    statuses = collections.Counter(r[2] for r in rows)
    return {"measured": len(per), "duplicated": dup, "workers": dict(workers), "statuses": dict(statuses)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default=str(ROOT / "benchmarks/spaces/matmul_tiled.cu"))
    ap.add_argument("--configs", default="300,all", help="budgets, comma separated ('all' = the whole space)")
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--ray", dest="ray_address")
    ap.add_argument("--backend", default="pycuda")
    ap.add_argument("--llm-session", help="a folder of tests/scripted/ to replay as an LLM session")
    ap.add_argument("--timeout", type=float, default=540)
    ap.add_argument("--out")
    args = ap.parse_args()
    gpu = "unknown"
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20).stdout.strip().replace("\n", " + ")
    except (OSError, subprocess.SubprocessError):
        pass
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for budget in args.configs.split(","):
            base = ["run", args.kernel, "--auto", "--json", "--backend", args.backend, "--search", "brute_force"]
            if budget != "all":
                base += ["--max-configs", budget]
            runs = [("gpus", ["--gpus", "1"], 1), ("gpus", ["--gpus", str(args.gpus)], args.gpus)]
            if args.ray_address:
                runs.append(("ray", ["--ray", args.ray_address], args.gpus))
            one = None
            for via, extra, n in runs:
                label = f"{budget}-{via}{n}"
                row = session(base + extra, tmp, label, args.timeout)
                row.update(via=via, gpus=n, configs=budget)
                if n == 1:
                    one = row
                row["ratio"] = (round(row["configs_per_s"] / one["configs_per_s"], 2)
                                if one and one.get("configs_per_s") and row.get("configs_per_s") else None)
                row["same_best"] = bool(one and row.get("best") and one.get("best")
                                        and row["best"].get("params") == one["best"].get("params"))
                rows.append(row)
                print(f"{label:>14}: rc {row['rc']} wall {row['wall_s']:7.2f} s  measured {row['measured']:4}  "
                      f"{row['configs_per_s'] or 0:6.2f}/s  ratio {row['ratio']}  first {row['first_result_s']}  "
                      f"json {row['json_parses']}  dup {row['duplicated']}  best {row.get('best')}", flush=True)
    doc = {"gpu": gpu, "date": time.strftime("%Y-%m-%d"), "host_cpus": os.cpu_count(), "sessions": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
