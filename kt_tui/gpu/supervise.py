"""A process tree kt-tui can always kill, for user code (the importer's script).

`python -m kt_tui.gpu.supervise PARENT_PID CMD...` runs CMD in a new session under this small
supervisor, which is the Linux child subreaper of everything CMD starts: a daemon that double-forks
and calls setsid is reparented here, not to init. When CMD ends, when the supervisor gets SIGTERM,
SIGINT or SIGHUP, or when kt-tui dies (parent-death signal), every descendant is killed with SIGKILL
and reaped before the supervisor exits. The parent side is `run_supervised`: output read through
select with a deadline, never a blocking read.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from typing import IO, cast

from .env import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, prctl

STOPPED = 124  # the supervisor's exit status when it was told to stop
CANNOT_RUN = 127
OUTPUT_MAX = 1 << 20  # bytes of output kept (the last ones)


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process, read from /proc."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                found[int(name)] = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return found


def children(pid: int) -> list[int]:
    """The live or zombie children of `pid`."""
    return [p for p, parent in _parents().items() if parent == pid]


def descendants(pid: int) -> set[int]:
    below: dict[int, list[int]] = {}
    for p, parent in _parents().items():
        below.setdefault(parent, []).append(p)
    found, todo = set(), [pid]
    while todo:
        for p in below.get(todo.pop(), ()):
            if p not in found:
                found.add(p)
                todo.append(p)
    return found


def _signal(pids, sig) -> None:
    for p in pids:
        try:
            os.kill(p, sig)
        except (ProcessLookupError, PermissionError):
            pass


def kill_tree(pid: int, root: bool = True) -> None:
    """SIGKILL `pid` (unless not `root`) and every process below it. Each is stopped first, until no
    new one appears, so that none forks away between the reading of the tree and the kill."""
    stopped: set[int] = set()
    if root:
        _signal([pid], signal.SIGSTOP)
    for _ in range(1000):
        new = descendants(pid) - stopped
        if not new:
            break
        _signal(new, signal.SIGSTOP)
        stopped |= new
    _signal(([pid] if root else []) + sorted(stopped), signal.SIGKILL)


def kill_children() -> None:
    """SIGKILL every child of this process and reap it, until none is left: the orphans of each
    killed one are reparented here (subreaper) and killed in turn."""
    me = os.getpid()
    while True:
        _signal(children(me), signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


class _Stop(Exception):
    pass


def _stop(signum, frame):
    raise _Stop


def supervise(parent: int, cmd: list[str]) -> int:
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # kt-tui died before the parent-death signal was set
        return STOPPED
    code = STOPPED
    try:
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, _stop)
        try:
            main = os.posix_spawnp(cmd[0], cmd, os.environ, setsid=True)
        except OSError as e:
            print(f"kt-tui: cannot run {cmd[0]}: {e.strerror or e}", file=sys.stderr, flush=True)
            return CANNOT_RUN
        while True:
            pid, status = os.waitpid(-1, 0)
            if pid == main:
                code = os.waitstatus_to_exitcode(status)
                code = 128 - code if code < 0 else code
                break
    except _Stop:
        pass
    finally:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
        kill_children()
    return code


def run_supervised(cmd: list[str], timeout_s: float, **popen) -> tuple[int | None, str]:
    """Run `cmd` under a supervisor: (exit status, or None when stopped at the deadline; its output,
    stdout and stderr together, the last OUTPUT_MAX bytes). Every process it started is dead when
    this returns, within about timeout_s + 2 seconds."""
    sup = [sys.executable, "-m", "kt_tui.gpu.supervise", str(os.getpid()), *cmd]
    proc = subprocess.Popen(
        sup, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True, **popen
    )
    stdout = cast(IO[bytes], proc.stdout)  # stdout=PIPE: never None
    deadline = time.monotonic() + timeout_s
    out = bytearray()
    fd = stdout.fileno()
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break  # every process that held the pipe is gone
            out += chunk
            del out[:-OUTPUT_MAX]
        try:
            code = proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            code = None
    finally:
        if proc.poll() is None:
            code = None
            _end(proc)
        stdout.close()
    return (None if code == STOPPED else code), out.decode(errors="replace")


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL to the process group `proc` leads (started with start_new_session: nvcc and the cicc
    and ptxas it starts, a child and what it started)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    except OSError:
        proc.kill()


def _end(proc: subprocess.Popen) -> None:
    """Tell the supervisor to kill its tree; kill it (and its session) when it does not within 2 s."""
    proc.terminate()
    try:
        proc.wait(2)
        return
    except subprocess.TimeoutExpired:
        pass
    kill_group(proc)
    proc.wait()


if __name__ == "__main__":
    raise SystemExit(supervise(int(sys.argv[1]), sys.argv[2:]))
