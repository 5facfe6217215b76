"""`kt-tui export` of a big session: wall time, peak memory and the size of each file it writes.

A session of vector_add holding N results (100,000 by default, benchmarks/tui.py's generator) is
exported with the real command in a fresh process each time. Targets (issue 24): <= 5 s, <= 200 MB
peak RSS, report.html <= 2 MB, every result still in the JSON / CSV data.

usage: python benchmarks/export.py [--results 100000] [--repeat 5] [--busy 2] [--before DIR] [--out FILE.txt]
                                  [--json FILE]
--busy N: N busy loops run beside the exports (load), ended after; with --apart each in a session of
its own (as loops started from another terminal: Linux shares the CPU between sessions first, so
loops in the exports' own session take more from them); --before DIR: the exports of the code in DIR
(a checkout's root) run in turn with this checkout's, under the same load.
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from tui import fill  # noqa: E402


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else str(os.getloadavg())


def export_once(db: Path, sid: str, out: Path, code: Path = ROOT) -> dict:
    """One `kt-tui export` of the code in `code`, in a child process started outside any checkout (so
    that its folder is not first on the path); its peak RSS is the child's own (wait4's rusage)."""
    env = dict(
        os.environ,
        KT_TUI_DB=str(db),
        KT_TUI_DATA_DIR=str(out.parent / "data"),
        KT_TUI_CONFIG_DIR=str(out.parent / "cfg"),
        PYTHONPATH=str(code),
    )
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kt_tui", "export", sid, "--out", str(out), "--force"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=out.parent,
    )
    stderr = proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    sizes = {str(p.relative_to(out)): p.stat().st_size for p in sorted(out.rglob("*")) if p.is_file()}
    return {
        "rc": proc.returncode,
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "total_mb": round(sum(sizes.values()) / 1e6, 2),
        "files": sizes,
        "stderr": stderr[-300:],
    }


def table(title: str, rows: list[dict]) -> list[str]:
    lines = [title] if title else []
    lines.append("run  rc   wall s   CPU s   peak RSS MB   written MB")
    for i, r in enumerate(rows):
        lines.append(
            f"{i:>3}  {r['rc']:>2}  {r['wall_s']:>7.2f}  {r['cpu_s']:>6.2f}  {r['peak_rss_mb']:>12.1f}  {r['total_mb']:>11.2f}"
        )
        if r["rc"]:
            lines.append("     " + r["stderr"].replace("\n", " | "))
    walls = [r["wall_s"] for r in rows]
    lines.append(
        f"median {statistics.median(walls):.2f} s, max {max(walls):.2f} s (CPU median "
        f"{statistics.median(r['cpu_s'] for r in rows):.2f} s, max {max(r['cpu_s'] for r in rows):.2f} s), "
        f"max peak RSS {max(r['peak_rss_mb'] for r in rows):.1f} MB (targets: <= 5 s, <= 200 MB, report.html <= 2 MB)"
    )
    lines.append("files written (last run), bytes:")
    return lines + [f"  {size:>12}  {name}" for name, size in rows[-1]["files"].items()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=int, default=100_000, help="results in the session (100000)")
    ap.add_argument("--repeat", type=int, default=5, help="exports to run, each in a fresh process (5)")
    ap.add_argument("--busy", type=int, default=0, help="busy loops to run beside the exports (0)")
    ap.add_argument("--apart", action="store_true", help="each busy loop in a session of its own")
    ap.add_argument("--before", help="a checkout whose exports run in turn with this one's (before / after)")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--json", help="also write the numbers as JSON to this file")
    ap.add_argument("--title", default="", help="a line said above the table (which code, which machine)")
    args = ap.parse_args()
    argv = " ".join(a for a in sys.argv[1:] if a != args.title and a != "--title")
    lines = [f"# python benchmarks/export.py {argv}  {args.title}".rstrip()]
    codes = {"after": ROOT} if not args.before else {"before": Path(args.before).resolve(), "after": ROOT}
    rows: dict[str, list[dict]] = {name: [] for name in codes}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "big.db"
        sid = fill(db, args.results)
        loops = [
            subprocess.Popen([sys.executable, "-c", "while 1: pass"], start_new_session=args.apart)
            for _ in range(args.busy)
        ]
        try:
            time.sleep(10 if loops else 0)  # the load average follows the loops
            before = loadavg()
            for i in range(args.repeat):
                for name, code in codes.items():
                    rows[name].append(export_once(db, sid, Path(tmp) / f"{name}{i}", code))
            after = loadavg()
        finally:
            for p in loops:
                p.kill()
                p.wait()
    lines.append(
        f"kt-tui export of {args.results} results, {platform.node()} {os.cpu_count()} cores, "
        f"python {platform.python_version()}, {args.busy} busy loops beside"
        + (" (each in a session of its own)" if args.apart else " (in the exports' session)" if args.busy else "")
    )
    lines.append(f"/proc/loadavg before: {before}   after: {after}")
    for name, runs in rows.items():
        lines += table(f"{name} ({codes[name]})" if len(codes) > 1 else "", runs)
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(text + "\n\n")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"results": args.results, "load": [before, after], "runs": rows}, indent=1, default=str)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
