"""`kt-tui export` of a big session: wall time, peak memory and the size of what it writes.

A session of vector_add holding N results (100,000 by default, benchmarks/tui.py's generator) is
exported with the real command in a fresh process. Targets (issue 24): <= 5 s, <= 200 MB peak RSS,
report.html <= 2 MB, every result still in the JSON / CSV data.

usage: python benchmarks/export.py [--results 100000] [--repeat 3] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from tui import fill  # noqa: E402


def export_once(db: Path, sid: str, out: Path) -> dict:
    env = dict(
        os.environ,
        KT_TUI_DB=str(db),
        KT_TUI_DATA_DIR=str(out.parent / "data"),
        KT_TUI_CONFIG_DIR=str(out.parent / "cfg"),
        PYTHONPATH=str(ROOT),
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "kt_tui", "export", sid, "--out", str(out), "--force"],
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sizes = {p.name: p.stat().st_size for p in out.rglob("*") if p.is_file()}
    return {
        "rc": proc.returncode,
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(max(rss, before) / 1024, 1),
        "rss_grew": rss > before,
        "total_mb": round(sum(sizes.values()) / 1e6, 2),
        "largest": sorted(sizes.items(), key=lambda kv: -kv[1])[:5],
        "stderr": proc.stderr[-300:],
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()
    load = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "big.db"
        sid = fill(db, args.results)
        for i in range(args.repeat):
            rows.append(export_once(db, sid, Path(tmp) / f"out{i}"))
    walls = [r["wall_s"] for r in rows]
    print(f"kt-tui export, {args.results} results, {platform.node()} {os.cpu_count()} cores, load {load[0]:.1f}")
    for r in rows:
        print(
            f"  rc {r['rc']}  {r['wall_s']:6.2f} s  peak RSS {r['peak_rss_mb']:6.1f} MB  written {r['total_mb']} MB  "
            f"largest {r['largest'][:3]}"
        )
        if r["rc"]:
            print("  " + r["stderr"])
    print(f"median {statistics.median(walls):.2f} s (target <= 5 s, <= 200 MB, report.html <= 2 MB)")
    if args.out:
        Path(args.out).write_text(json.dumps({"results": args.results, "load": load, "runs": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
