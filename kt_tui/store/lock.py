"""One process runs a session at a time: a kernel lock (fcntl.flock) on a file per session in
DB.locks/ beside the database. The kernel drops it when its process ends, however it ends (kill -9
included), so a lock is never stale and a reused PID never holds one. The file says who holds it
(pid, host, since, the process's start time) for messages; a record without a lock means nothing."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

from ..errors import EnvironmentProblem, UserError


class SessionLocked(UserError):
    """Another live process is running the session."""


_HELD: dict[str, int] = {}  # lock file -> its descriptor, for the locks this process holds


def lock_path(db_path: str, sid: str) -> Path | None:
    """The session's lock file; None for an in-memory database (no other process can open it)."""
    if db_path == ":memory:":
        return None
    db = Path(db_path).resolve()
    return db.with_name(db.name + ".locks") / (hashlib.sha256(sid.encode()).hexdigest()[:24] + ".lock")


def _started() -> str:
    """This process's start time (from /proc), for the record; "" where unknown."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        boot = next(
            int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines() if line.startswith("btime ")
        )
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(boot + ticks / os.sysconf("SC_CLK_TCK")))
    except (OSError, ValueError, IndexError, StopIteration):
        return ""


def _record(fd: int) -> dict[str, Any]:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _message(sid: str, who: dict[str, Any]) -> str:
    host = who.get("host")
    where = f" on {host}" if host and host != socket.gethostname() else ""
    return (
        f"session {sid} is open in process {who.get('pid', '?')}{where} (since {who.get('since', '?')}); "
        "close it there first"
    )


def _open(path: Path) -> int:
    if os.path.lexists(path.parent) and not path.parent.is_dir():
        raise EnvironmentProblem(
            f"{path.parent} is not a folder: kt-tui keeps its session locks in a folder of that name beside "
            "the database (move the file away)"
        )
    try:
        path.parent.mkdir(exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError as e:
        raise EnvironmentProblem(f"cannot create the session lock {path}: {e.strerror}") from None


def acquire(path: Path | None, sid: str, since: str) -> None:
    """Hold the session's lock; SessionLocked (saying who) when another process holds it."""
    if path is None or str(path) in _HELD:
        return
    while True:
        fd = _open(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            who = _record(fd)
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise SessionLocked(_message(sid, who)) from None
            raise EnvironmentProblem(f"cannot lock {path}: {e.strerror}") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the file was removed by its holder meanwhile: lock the new one
    record = {"session": sid, "pid": os.getpid(), "host": socket.gethostname(), "since": since, "started": _started()}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(record).encode(), 0)
    _HELD[str(path)] = fd


def release(path: Path | None) -> None:
    fd = _HELD.pop(str(path), None) if path is not None else None
    if fd is None or path is None:
        return
    try:
        path.unlink()
    except OSError:
        pass
    os.close(fd)


def holder(path: Path | None) -> dict[str, Any] | None:
    """Who holds the lock (the record it wrote), or None when no process does."""
    if path is None:
        return None
    fd = _HELD.get(str(path))
    if fd is not None:
        return _record(fd)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _record(fd) or {"pid": "?"}
        return None
    finally:
        os.close(fd)


def held_here(path: Path | None) -> bool:
    return path is not None and str(path) in _HELD
