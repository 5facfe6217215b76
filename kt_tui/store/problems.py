"""SQLite failures that are the machine's, not kt-tui's: a full disk, a read-only file or folder, a
database another program holds locked, a damaged file. Each becomes one line naming the database."""

from __future__ import annotations

import errno
import sqlite3

from ..errors import EnvironmentProblem, UserError

_ENVIRONMENT = {
    "database or disk is full": "the disk is full",
    "disk i/o error": "a disk I/O error (a full disk or a file size limit?)",
    "attempt to write a readonly database": "it is read-only",
    "unable to open database file": "it cannot be opened (its folder missing, not writable or full?)",
    "database is locked": "another program holds it locked",
}
_DAMAGED = ("database disk image is malformed", "file is not a database")
_OS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "it is read-only",
    errno.EFBIG: "a file size limit was reached",
    errno.EACCES: "permission denied",
}


def db_problem(e: BaseException, path: str, sid: str | None = None) -> UserError | None:
    """The error to show for `e`, raised while kt-tui used the database at `path`, or None when
    it is none of these. A session that was running is named: what was stored before is kept."""
    what = f"the session database {path}"
    if isinstance(e, sqlite3.Error):
        text = str(e).lower()
        if any(d in text for d in _DAMAGED):
            return UserError(f"{path}: {e} (a damaged file): pass another --db")
        why = next((w for k, w in _ENVIRONMENT.items() if k in text), None)
    elif isinstance(e, OSError):
        why, what = (_OS.get(e.errno) if e.errno is not None else None), e.filename or "a file"
    else:
        why = None
    if why is None:
        return None
    then = (
        (
            f"; session {sid} stopped, what it stored before is kept (`kt-tui resume {sid}` goes on once the "
            "database can be written)"
        )
        if sid
        else ""
    )
    problem = EnvironmentProblem(f"cannot use {what}: {why}{then}")
    problem.session = sid
    return problem


def read_only_problem(path: str, schema: int | None = None) -> EnvironmentProblem:
    """A database this process may read but not write (store/db.py opens it read-only): listing and
    export work, what would write says so and what to do; `schema`: an older one, which must be
    brought up to date (written) before anything reads it."""
    what = (
        f"was made by an older kt-tui (schema {schema}) and must be brought up to date"
        if schema is not None
        else "listing and export work; to resume, run or delete,"
    )
    return EnvironmentProblem(
        f"the session database {path} is read-only here: {what} copy it to a folder you can write and pass "
        "the copy with --db"
    )
