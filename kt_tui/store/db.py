"""The session database: SQLite in WAL mode, one connection per thread, read and written with plain
SQL; sqlite-utils creates and migrates the tables. Its schema lives here; what is kept in it, and
how, in store/store.py (sessions, versions, gates, ...), store/results.py (runs, results, checks) and
store/refs.py (reference outputs, beside the file).

Every row is committed when it is written, so a killed process loses nothing that was stored.
Events are append-only; sessions, gates, runs and results are upserted by their keys.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..redact import scrub
from .lock import SessionLocked  # noqa: F401 - the name older code imports from here
from .problems import read_only_problem


def _sqlite_utils() -> Any:
    """sqlite-utils, for creating and migrating tables. Imported on first use: a database at the
    current schema is read and written with plain SQL and needs none of it (a tenth of a second
    to import, on the way to every command's first result). It imports pandas
    and numpy whenever they are installed, only to map their types to column types when it infers
    a table from values: every table here is created with its column types given, so it is told
    that those not yet loaded are not there."""
    if "sqlite_utils" in sys.modules:
        return sys.modules["sqlite_utils"]
    hidden = [m for m in ("pandas", "numpy") if m not in sys.modules]
    for m in hidden:
        sys.modules[m] = None  # type: ignore[assignment]  # makes `import m` raise ImportError
    try:
        import sqlite_utils
    finally:
        for m in hidden:
            del sys.modules[m]
    return sqlite_utils


SCHEMA_VERSION = 3  # 2: results.verdicts, checks; 3: results indexed by time

_TABLES: dict[str, tuple[dict[str, type], str | tuple[str, ...]]] = {
    "sessions": (
        {
            "id": str,
            "kernel_path": str,
            "kernel_name": str,
            "created": str,
            "updated": str,
            "state": str,
            "strategy": str,
            "backend": str,
            "backend_request": str,
            "gpu": str,
            "simulated": int,
            "sim_cache": str,
            "note": str,
            "settings": str,
            "baseline_ms": float,
            "best_ms": float,
            "best_version": str,
            "best_key": str,
            "error": str,
            "check_state": str,
            "device": str,  # the device's facts and measured peaks as JSON (gpu/facts.py); the recording's in sim
        },
        "id",
    ),
    "versions": (
        {
            "session": str,
            "id": str,
            "parent": str,
            "label": str,
            "source": str,
            "spec_toml": str,
            "spec_json": str,
            "created": str,
        },
        ("session", "id"),
    ),
    "runs": (
        {
            "session": str,
            "id": str,
            "version": str,
            "kind": str,
            "strategy": str,
            "state": str,
            "total": int,
            "cachefile": str,
            "device": str,
            "started": str,
            "ended": str,
            "error": str,
        },
        ("session", "id"),
    ),
    "results": (
        {
            "session": str,
            "version": str,
            "key": str,
            "run": str,
            "params": str,
            "time_ms": float,
            "times": str,
            "status": str,
            "error": str,
            "verified": int,
            "max_abs_err": float,
            "first_bad": str,
            "compile_ms": float,
            "source": str,
            "origin": str,
            "created": str,
            "verdicts": str,
            "worker": str,
            "device": str,
        },
        ("session", "version", "key"),
    ),
    "checks": (
        {
            "session": str,
            "version": str,
            "key": str,
            "label": str,
            "sizes": str,
            "ok": int,
            "status": str,
            "reason": str,
            "verdicts": str,
            "source": str,
            "created": str,
        },
        ("session", "version", "key", "label"),
    ),
    # an Nsight Compute profile of one result (gpu/profile.py): its state and summary (JSON)
    "profiles": (
        {"session": str, "version": str, "key": str, "state": str, "summary": str, "created": str},
        ("session", "version", "key"),
    ),
    "refs": ({"session": str, "version": str, "file": str, "sha256": str, "summary": str}, ("session", "version")),
    "gates": (
        {
            "session": str,
            "key": str,
            "seq": int,
            "kind": str,
            "title": str,
            "body": str,
            "state": str,
            "decision": str,
            "created": str,
            "decided": str,
        },
        ("session", "key"),
    ),
    "events": ({"id": int, "session": str, "ts": str, "kind": str, "data": str}, "id"),
    "llm_calls": (
        {
            "id": int,
            "session": str,
            "key": str,
            "purpose": str,
            "model": str,
            "base_url": str,
            "messages": str,
            "reply": str,
            "error": str,
            "tokens_in": int,
            "tokens_out": int,
            "latency_s": float,
            "attempt": int,
            "streamed": int,
            "created": str,
            "state": str,
        },
        "id",
    ),
    "llm_results": (
        {"session": str, "key": str, "value": str, "text": str, "by": str, "created": str},
        ("session", "key"),
    ),
    # no longer written (store/lock.py holds the locks); kept so that no file needs a migration
    "locks": ({"session": str, "pid": int, "host": str, "since": str}, "session"),
    "steps": (
        {
            "session": str,
            "id": str,
            "seq": int,
            "title": str,
            "description": str,
            "state": str,
            "reason": str,
            "version": str,
            "parent": str,
            "updated": str,
        },
        ("session", "id"),
    ),
}


# the fastest results, the best one and counts are read through results_by_time, never by decoding
# every row; the workers of a session through results_by_worker (only rows that name one)
_INDEXES = {
    "results_by_time": "CREATE INDEX IF NOT EXISTS results_by_time ON results (session, time_ms)",
    "results_by_worker": "CREATE INDEX IF NOT EXISTS results_by_worker ON results (session, worker) "
    "WHERE worker IS NOT NULL",
}


class SchemaError(UserError):
    """The file is not a session database this kt-tui can read."""


SESSIONS_HERE: list[str] = []  # the sessions this process created or locked, for its last words


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


class Database:
    """One SQLite file: a connection per thread, the schema made and migrated on open, rows read and
    written with plain SQL. Store (store/store.py) is what the rest of kt-tui uses."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        self.read_only = self.path != ":memory:" and _read_only(Path(self.path))
        if self.path != ":memory:" and not self.read_only:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._sound: set[str] = set()  # sessions whose rows store/sound.py found as kt-tui writes them
        self._migrate()

    def check_writable(self) -> None:
        """EnvironmentProblem (exit 3) saying what to do, for a database this process may only read."""
        if self.read_only:
            raise read_only_problem(self.path)

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self.read_only:
                conn = sqlite3.connect(_read_only_uri(self.path), uri=True)
            else:
                conn = sqlite3.connect(self.path)
            conn.execute("PRAGMA busy_timeout = 10000")
            # WAL + NORMAL: every commit survives the app being killed (not a power cut) without an fsync each
            conn.execute("PRAGMA synchronous = NORMAL")
            self._local.conn = conn
        return conn

    @property
    def db(self) -> Any:
        """This thread's connection through sqlite-utils."""
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = _sqlite_utils().Database(self.conn)
        return db

    def _current(self) -> bool:
        """The file has this schema version and every table and column: nothing to migrate."""
        conn = self.conn
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            return False
        for name, (columns, _) in _TABLES.items():
            have = {row[1] for row in conn.execute(f"PRAGMA table_info([{name}])")}
            if not have >= set(columns):
                return False
        indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        return indexes >= set(_INDEXES)

    def _check_keys(self) -> None:
        """Every table that is there has the primary key rows are written by (an old or damaged
        file may not: each write would fail)."""
        for name, (_, pk) in _TABLES.items():
            info = self.conn.execute(f"PRAGMA table_info([{name}])").fetchall()
            want = (pk,) if isinstance(pk, str) else pk
            if info and tuple(row[1] for row in sorted(info, key=lambda r: r[5]) if row[5]) != want:
                raise SchemaError(
                    f"{self.path}: table {name} lacks its primary key ({', '.join(want)}): a damaged "
                    "or foreign file, not opened (pass another --db)"
                )

    def _migrate(self) -> None:
        if 0 <= self.conn.execute("PRAGMA user_version").fetchone()[0] <= SCHEMA_VERSION:
            self._check_keys()  # (a file of another version is refused below, saying so)
        if self._current():
            if self.path != ":memory:" and not self.read_only:
                self.conn.execute("PRAGMA journal_mode = wal")
            return
        db = self.db
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version < 0:
            raise SchemaError(
                f"{self.path} has schema version {version}, which no kt-tui writes: not opened (pass another --db)"
            )
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"{self.path} was made by a newer kt-tui (schema {version}, this one reads up to "
                f"{SCHEMA_VERSION}); upgrade kt-tui to open it"
            )
        names = {n for n in db.table_names() if not n.startswith("sqlite_")}
        if names and not names & set(_TABLES):
            raise SchemaError(
                f"{self.path} is not a kt-tui session database (it has other tables: "
                f"{', '.join(sorted(names)[:5])}); pass another --db"
            )
        if self.read_only:
            raise read_only_problem(self.path, schema=version)
        if self.path != ":memory:":
            db.enable_wal()
        for name, (columns, pk) in _TABLES.items():
            if not db[name].exists():
                db[name].create(columns, pk=pk, not_null=set(), if_not_exists=True)
            else:
                missing = {c: t for c, t in columns.items() if c not in db[name].columns_dict}
                for c, t in missing.items():
                    db[name].add_column(c, t)
        if not db["events"].indexes:
            db["events"].create_index(["session", "id"], if_not_exists=True)
        with db.conn:
            for sql in _INDEXES.values():
                db.execute(sql)
        if version != SCHEMA_VERSION:
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- plain SQL: sqlite-utils (a tenth of a second to import) only creates and migrates tables --------
    def _rows_where(self, table: str, where: str, args: list[Any], order_by: str | None = None) -> list[dict[str, Any]]:
        sql = f"SELECT * FROM [{table}] WHERE {where}" + (f" ORDER BY {order_by}" if order_by else "")
        cursor = self.conn.execute(sql, args)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor]

    def _insert(self, table: str, row: dict[str, Any]) -> int:
        """One row, committed; its rowid (the id of a table whose key is an integer id)."""
        sql = f"INSERT INTO [{table}] ({_names(row)}) VALUES ({', '.join('?' * len(row))})"
        with self.conn as conn:
            return conn.execute(sql, _values(row)).lastrowid or 0

    def _upsert(self, table: str, row: dict[str, Any]) -> None:
        """One row by its table's key, committed: inserted, or its given columns changed."""
        pk = _TABLES[table][1]
        pk = pk if isinstance(pk, tuple) else (pk,)
        changed = [c for c in row if c not in pk]
        sql = (
            f"INSERT INTO [{table}] ({_names(row)}) VALUES ({', '.join('?' * len(row))}) "
            f"ON CONFLICT({', '.join(pk)}) DO "
            + ("UPDATE SET " + ", ".join(f"[{c}] = excluded.[{c}]" for c in changed) if changed else "NOTHING")
        )
        with self.conn as conn:
            conn.execute(sql, _values(row))

    def _update(self, table: str, key: Any, fields: dict[str, Any]) -> None:
        """The given columns of the row with this key (a value, or a tuple for a key of several
        columns), committed; LookupError when there is no such row."""
        pk = _TABLES[table][1]
        names, key = (pk, key) if isinstance(pk, tuple) else ((pk,), (key,))
        if not fields:
            if not self.conn.execute(
                f"SELECT 1 FROM [{table}] WHERE " + " AND ".join(f"[{c}] = ?" for c in names), list(key)
            ).fetchone():
                raise LookupError(f"{table}: no row {key}")
            return
        sql = (
            f"UPDATE [{table}] SET "
            + ", ".join(f"[{c}] = ?" for c in fields)
            + " WHERE "
            + " AND ".join(f"[{c}] = ?" for c in names)
        )
        with self.conn as conn:
            if conn.execute(sql, _values(fields) + list(key)).rowcount != 1:
                raise LookupError(f"{table}: no row {key}")


def refuse_read_only(path: str) -> None:
    """Database.check_writable before the database is opened (`run` says so before its worker starts)."""
    if path != ":memory:" and _read_only(Path(path)):
        raise read_only_problem(path)


def _read_only(path: Path) -> bool:
    """A database that exists and that this process may read but not write: the file, or its folder
    (where SQLite keeps its -wal and -shm files and kt-tui its locks), is not writable, or the mount
    is read-only. Such a file is opened read-only and nothing is made beside it."""
    return path.is_file() and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))


def _read_only_uri(path: str) -> str:
    """SQLite's read-only URI for the file. Without a -wal or -journal file no connection has it open
    (the last one to close removes them), so it is opened immutable: SQLite then reads the file
    alone and needs no -shm file, which it could not make in a read-only folder. With one, a writer
    may be at work: plain mode=ro reads its log as well."""
    file = Path(path).resolve()
    busy = any(file.with_name(file.name + end).exists() for end in ("-wal", "-journal"))
    return file.as_uri() + ("?mode=ro" if busy else "?mode=ro&immutable=1")


def _names(row: dict[str, Any]) -> str:
    return ", ".join(f"[{c}]" for c in row)


def _values(row: dict[str, Any]) -> list[Any]:
    """The row's values as SQLite takes them; a table or list as JSON text (as sqlite-utils wrote them);
    every text scrubbed of secrets (the LLM client scrubs first: this is the second line)."""
    return [
        scrub(json.dumps(v, default=repr, ensure_ascii=False)) if isinstance(v, (dict, list, tuple)) else scrub(v)
        for v in row.values()
    ]
