"""kt-tui's own overhead, without a GPU: start-up of the command line, and the cost per
configuration of the whole pipeline (worker process, kernel_tuner simulation, store, events)
when a recorded cache is replayed.

usage: python benchmarks/overhead.py [--repeat N]      prints a table
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    n = ap.parse_args().repeat
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, KT_TUI_DATA_DIR=tmp, KT_TUI_CONFIG_DIR=tmp)
        kt = [sys.executable, "-m", "kt_tui"]
        help_s = [timed([*kt, "--help"], env) for _ in range(n)]
        rows.append(("kt-tui --help", statistics.median(help_s), "s", "target < 0.3 s (no Textual import)"))
        for name, configs in (("vector_add", 6), ("reduction", 25)):
            runs = []
            for i in range(n):
                db = Path(tmp) / f"{name}{i}.db"
                runs.append(timed([*kt, "run", str(ROOT / "examples" / f"{name}.cu"), "--auto", "--backend", "sim",
                                   "--db", str(db)], env))
            total = statistics.median(runs)
            rows.append((f"sim replay {name} ({configs} configs), whole command", total, "s", ""))
            rows.append((f"  per configuration, start-up included", total / configs, "s", ""))
    width = max(len(r[0]) for r in rows)
    print(f"{'measure'.ljust(width)}  {'median':>9}  unit  note   (median of {n}, {os.cpu_count()} cores)")
    for name, value, unit, note in rows:
        print(f"{name.ljust(width)}  {value:9.3f}  {unit:4}  {note}")


if __name__ == "__main__":
    main()
