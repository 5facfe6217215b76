"""Shared test helpers: run the real CLI in-process and read its JSON."""

from __future__ import annotations

import json
import os
import sys

from kt_tui.cli import main


def run_cli(capsys, *argv: str) -> tuple[int, dict | list | None]:
    """Run kt-tui in-process; returns the exit code and the JSON it printed last (stderr on failure)."""
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    out = captured.out
    start = out.find("{") if argv[0] != "sessions" else out.find("[")
    data = json.loads(out[start:]) if start >= 0 else None
    if data is None or code != 0:
        print(f"kt-tui {' '.join(map(str, argv))} -> {code}\nstderr:\n{captured.err[-3000:]}", file=sys.stderr)
    return code, data


def report(line: str) -> None:
    """GPU tests append what they measured here, for the closing note."""
    path = os.environ.get("KT_TUI_GPU_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(line.rstrip() + "\n")


def compile_pid() -> int:
    """A compile job of CompilePool's that runs in its processes (gpu/device/pools.py): says where it ran."""
    return os.getpid()


compile_pid.holds_gil = True  # type: ignore[attr-defined]


def pool_children(queue) -> None:
    """In a process of its own: a CompilePool's processes, their pids sent back, then wait to be killed."""
    import time

    from kt_tui.gpu.device.pools import CompilePool

    pool = CompilePool(2)
    deadline = time.monotonic() + 60
    while pool.submit(compile_pid).result() == os.getpid() and time.monotonic() < deadline:
        time.sleep(0.05)
    queue.put([p.pid for p in (pool.processes._processes or {}).values()] if pool.processes else [])
    time.sleep(120)


def counted_compile(log: str, what: str, seconds: float) -> str:
    """A compile job that says it ran (a line in `log`), takes `seconds`, and fails for "fail"."""
    import time

    with open(log, "a") as f:
        f.write(what + "\n")
    time.sleep(seconds)
    if what == "fail":
        raise ValueError("it does not compile")
    return f"cubin of {what}"
