"""Where a session's start-up time goes: with KT_TUI_TRACE=FILE, the app and the GPU worker append
one line per step to FILE (wall-clock seconds, process id, step), so that
`benchmarks/overhead.py` can say what came before the first result. Without it, nothing is written."""

from __future__ import annotations

import os
import time


def mark(step: str) -> None:
    path = os.environ.get("KT_TUI_TRACE")
    if not path:
        return
    try:
        with open(path, "a") as f:
            f.write(f"{time.time():.6f} {os.getpid()} {step}\n")
    except OSError:
        pass  # a trace is for benchmarks: never a reason to fail


def read(path: str) -> list[tuple[float, int, str]]:
    """The marks of a trace file, in time order."""
    out = []
    try:
        with open(path) as f:
            for line in f:
                t, pid, step = line.rstrip("\n").split(" ", 2)
                out.append((float(t), int(pid), step))
    except (OSError, ValueError):
        return []
    return sorted(out)
