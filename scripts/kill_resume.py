"""Kill -9 a headless run mid-sweep, resume it, and check that no committed row was lost.

usage: python scripts/kill_resume.py KERNEL.cu --db PATH [--backend B] [--after N] [kt-tui flags...]
Prints one JSON line: rows before the kill, rows after resume, lost rows, duplicates, states.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time


def rows(db: str) -> dict:
    try:
        con = sqlite3.connect(db, timeout=10)
        out = {(r[0], r[1]): (r[2], r[3]) for r in con.execute("SELECT version, key, time_ms, status FROM results")}
        con.close()
        return out
    except sqlite3.Error:
        return {}


def main(argv: list[str]) -> int:
    kernel, rest = argv[0], argv[1:]
    db = rest[rest.index("--db") + 1]
    after = 5
    if "--after" in rest:
        i = rest.index("--after")
        after = int(rest[i + 1])
        del rest[i : i + 2]
    cmd = [sys.executable, "-m", "kt_tui", "run", kernel, "--auto", "--json", *rest]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while len(rows(db)) < after and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = rows(db)
    sid = sqlite3.connect(db).execute("SELECT id FROM sessions ORDER BY rowid DESC").fetchone()[0]
    t0 = time.monotonic()
    res = subprocess.run(
        [sys.executable, "-m", "kt_tui", "resume", sid, "--auto", "--json", *rest], capture_output=True, text=True
    )
    after_rows = rows(db)
    summary = json.loads(res.stdout[res.stdout.find("{") :]) if "{" in res.stdout else {"error": res.stderr[-500:]}
    lost = [k for k in before if k not in after_rows]
    changed = [k for k in before if k in after_rows and after_rows[k] != before[k]]
    print(
        json.dumps(
            {
                "session": sid,
                "rows_at_kill": len(before),
                "rows_after_resume": len(after_rows),
                "lost": len(lost),
                "remeasured": len(changed),
                "resume_exit": res.returncode,
                "resume_seconds": round(time.monotonic() - t0, 2),
                "state": summary.get("state"),
                "error": summary.get("error"),
            }
        )
    )
    return 0 if not lost and not changed and res.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
