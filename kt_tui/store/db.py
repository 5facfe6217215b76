"""The session store: SQLite in WAL mode, one connection per thread, read and written with plain SQL;
sqlite-utils creates and migrates the tables.

Every row is committed when it is written, so a killed process loses nothing that was stored.
Events are append-only; sessions, gates, runs and results are upserted by their keys.
"""

from __future__ import annotations

import atexit
import hashlib
import io
import json
import sqlite3
import sys
import threading
import time
import uuid
from pathlib import Path


def _sqlite_utils():
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
        sys.modules[m] = None  # makes `import m` raise ImportError
    try:
        import sqlite_utils
    finally:
        for m in hidden:
            del sys.modules[m]
    return sqlite_utils


from ..errors import UserError
from ..redact import scrub
from .lock import SessionLocked, acquire, held_here, holder, lock_path, release

# Imported where used: sqlite-utils (see _import_sqlite_utils) and numpy, which listing sessions
# does not need.

SCHEMA_VERSION = 3  # 2: results.verdicts, checks; 3: results indexed by time

_TABLES = {
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


_RESULT_COLUMNS = (
    "session",
    "version",
    "key",
    "run",
    "params",
    "time_ms",
    "times",
    "status",
    "error",
    "verified",
    "max_abs_err",
    "first_bad",
    "compile_ms",
    "source",
    "origin",
    "created",
    "verdicts",
    "worker",
    "device",
)
_RESULT_UPSERT = (
    f"INSERT INTO results ({', '.join(_RESULT_COLUMNS)}) VALUES ({', '.join('?' * len(_RESULT_COLUMNS))}) "
    "ON CONFLICT(session, version, key) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in _RESULT_COLUMNS[3:])
)


SESSIONS_HERE: list[str] = []  # the sessions this process created or locked, for its last words


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


def _json_dumps():
    """json.dumps(o) for the results' params, times and verdicts, the same text: the stdlib's C
    encoder made once, where json.dumps makes one at every call (about half of storing a result)."""
    from json.encoder import JSONEncoder, c_make_encoder, encode_basestring_ascii

    if c_make_encoder is None:
        return json.dumps
    encode = c_make_encoder(None, JSONEncoder().default, encode_basestring_ascii, None, ": ", ", ", False, False, True)
    return lambda o: "".join(encode(o, 0))


_dumps = _json_dumps()


class Store:
    def __init__(self, path: str | Path, refs_dir: str | Path | None = None):
        self.path = str(path)
        self.refs_dir = Path(refs_dir) if refs_dir else Path(self.path).resolve().parent / "refs"
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._refs: dict[tuple[str, str], dict] = {}  # reference outputs set or read by this process
        self._writers: list[threading.Thread] = []
        self._write_lock = threading.Lock()
        self._migrate()

    @property
    def conn(self) -> sqlite3.Connection:
        """This thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path)
            conn.execute("PRAGMA busy_timeout = 10000")
            # WAL + NORMAL: every commit survives the app being killed (not a power cut) without an fsync each
            conn.execute("PRAGMA synchronous = NORMAL")
            self._local.conn = conn
        return conn

    @property
    def db(self):
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
            if self.path != ":memory:":
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

    # -- sessions ------------------------------------------------------------------------
    def create_session(self, **fields) -> str:
        sid = fields.pop("id", None) or uuid.uuid4().hex[:8]
        row = {"id": sid, "created": now(), "updated": now(), "state": "new", **fields}
        self._insert("sessions", row)
        SESSIONS_HERE.append(sid)
        return sid

    def update_session(self, sid: str, **fields) -> None:
        self._update("sessions", sid, {**fields, "updated": now()})

    def session(self, sid: str) -> dict | None:
        rows = self._rows_where("sessions", "id = ?", [sid])
        if not rows:
            rows = self._rows_where("sessions", "substr(id, 1, ?) = ?", [len(sid), sid])
            if len(rows) != 1:
                return None
        return rows[0]

    # -- plain SQL: sqlite-utils (a tenth of a second to import) only creates and migrates tables --------
    def _rows_where(self, table: str, where: str, args: list, order_by: str | None = None) -> list[dict]:
        sql = f"SELECT * FROM [{table}] WHERE {where}" + (f" ORDER BY {order_by}" if order_by else "")
        cursor = self.conn.execute(sql, args)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor]

    def _insert(self, table: str, row: dict) -> int:
        """One row, committed; its rowid (the id of a table whose key is an integer id)."""
        sql = f"INSERT INTO [{table}] ({_names(row)}) VALUES ({', '.join('?' * len(row))})"
        with self.conn as conn:
            return conn.execute(sql, _values(row)).lastrowid

    def _upsert(self, table: str, row: dict) -> None:
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

    def _update(self, table: str, key, fields: dict) -> None:
        """The given columns of the row with this key (a value, or a tuple for a key of several
        columns), committed; LookupError when there is no such row."""
        pk = _TABLES[table][1]
        pk, key = (pk, key) if isinstance(pk, tuple) else ((pk,), (key,))
        if not fields:
            if not self.conn.execute(
                f"SELECT 1 FROM [{table}] WHERE " + " AND ".join(f"[{c}] = ?" for c in pk), list(key)
            ).fetchone():
                raise LookupError(f"{table}: no row {key}")
            return
        sql = (
            f"UPDATE [{table}] SET "
            + ", ".join(f"[{c}] = ?" for c in fields)
            + " WHERE "
            + " AND ".join(f"[{c}] = ?" for c in pk)
        )
        with self.conn as conn:
            if conn.execute(sql, _values(fields) + list(key)).rowcount != 1:
                raise LookupError(f"{table}: no row {key}")

    def sessions(self) -> list[dict]:
        cursor = self.conn.execute("SELECT * FROM sessions ORDER BY created DESC, rowid DESC")
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row)) for row in cursor]

    def delete_session(self, sid: str) -> None:
        """The session and every row and reference file that belongs to it. SessionLocked when a
        process (this one included) is running it."""
        path = lock_path(self.path, sid)
        if held_here(path):
            raise SessionLocked(f"session {sid} is open in this kt-tui; close it first")
        acquire(path, sid, now())
        try:
            with self.conn as conn:
                for name in _TABLES:
                    if name != "sessions":
                        conn.execute(f"DELETE FROM [{name}] WHERE session = ?", [sid])
                conn.execute("DELETE FROM sessions WHERE id = ?", [sid])
            for ref in self.refs_dir.glob(f"{sid}-*.npz"):
                ref.unlink(missing_ok=True)
        finally:
            release(path)

    def latest_session(self) -> dict | None:
        rows = self.sessions()
        return rows[0] if rows else None

    # -- one process runs a session at a time ---------------------------------------------
    def lock(self, sid: str) -> None:
        """Take the session for this process (store/lock.py); SessionLocked when another live
        process holds it. Released by unlock() or when this process ends, however it ends."""
        acquire(lock_path(self.path, sid), sid, now())
        SESSIONS_HERE.append(sid)
        atexit.register(self.unlock, sid)

    def unlock(self, sid: str) -> None:
        release(lock_path(self.path, sid))

    def lock_holder(self, sid: str) -> dict | None:
        """pid, host, since and started of the process that holds the session, or None."""
        return holder(lock_path(self.path, sid))

    # -- kernel versions -----------------------------------------------------------------
    def add_version(
        self, sid: str, vid: str, source: str, spec_toml: str, spec: dict, parent: str | None = None, label: str = ""
    ) -> None:
        self._upsert(
            "versions",
            {
                "session": sid,
                "id": vid,
                "parent": parent,
                "label": label,
                "source": source,
                "spec_toml": spec_toml,
                "spec_json": json.dumps(spec),
                "created": now(),
            },
        )

    def update_version(self, sid: str, vid: str, spec_toml: str, spec: dict) -> None:
        self._update("versions", (sid, vid), {"spec_toml": spec_toml, "spec_json": json.dumps(spec)})

    def version(self, sid: str, vid: str) -> dict | None:
        rows = self._rows_where("versions", "session = ? AND id = ?", [sid, vid])
        return rows[0] if rows else None

    def versions(self, sid: str) -> list[dict]:
        return self._rows_where("versions", "session = ?", [sid], order_by="rowid")

    # -- runs and results ----------------------------------------------------------------
    def put_run(self, sid: str, rid: str, **fields) -> None:
        self._upsert("runs", {"session": sid, "id": rid, **fields})

    def run(self, sid: str, rid: str) -> dict | None:
        rows = self._rows_where("runs", "session = ? AND id = ?", [sid, rid])
        return rows[0] if rows else None

    def runs(self, sid: str) -> list[dict]:
        return self._rows_where("runs", "session = ?", [sid], order_by="rowid")

    def add_result(self, sid: str, vid: str, rid: str, r: dict) -> None:
        """One result, committed at once (a killed process keeps every configuration it reported).
        Plain SQL: sqlite-utils' upsert inspects the table on every call, which costs more than the write."""
        self.add_results(sid, vid, rid, [r])

    def add_results(self, sid: str, vid: str, rid: str, rs: list[dict]) -> None:
        """Several results in one transaction: all of them are stored, or none."""
        stamp, dumps = now(), _dumps
        rows = [
            (
                sid,
                vid,
                r["key"],
                rid,
                dumps(r["params"]),
                r.get("time_ms"),
                dumps(r.get("times")),
                r["status"],
                scrub(r.get("error")),
                None if r.get("verified") is None else int(r["verified"]),
                r.get("max_abs_err"),
                r.get("first_bad"),
                r.get("compile_ms"),
                scrub(r.get("source")),
                r.get("origin"),
                r.get("timestamp") or stamp,
                None if r.get("verdicts") is None else dumps(r["verdicts"]),
                r.get("worker"),
                r.get("device") if r.get("worker") else None,
            )
            for r in rs
        ]
        with self.conn as conn:
            conn.executemany(_RESULT_UPSERT, rows)

    def mark_result(self, sid: str, vid: str, key: str, **fields) -> None:
        """Change a stored result after the fact (a check at another size found it wrong)."""
        self._update("results", (sid, vid, key), fields)

    def results(self, sid: str, vid: str | None = None) -> list[dict]:
        """Every result in the order they were stored, decoded: for exports and small sessions. The
        engine and the UI read counts, keys, the fastest rows and single rows instead (below)."""
        where, args = ("session = ? AND version = ?", [sid, vid]) if vid else ("session = ?", [sid])
        return [_decoded(row) for row in self._result_rows(where, args, "rowid")]

    def iter_results(self, sid: str, vid: str | None = None):
        """Every result (of `vid`) in the order stored, decoded one at a time: an export of 100,000
        results holds one of them at once."""
        cond, args = ("session = ? AND version = ?", [sid, vid]) if vid else ("session = ?", [sid])
        for row in self._result_rows(cond, args, "rowid"):
            yield _decoded(row)

    def result_times(self, sid: str, vid: str) -> list[tuple]:
        """(key, time_ms, status, verified) of each result of `vid`, in the order stored: what a plot draws."""
        return self.conn.execute(
            "SELECT key, time_ms, status, verified FROM results WHERE session = ? AND version = ? ORDER BY rowid",
            [sid, vid],
        ).fetchall()

    def _result_rows(self, where: str, args: list, order: str, limit: int | None = None):
        sql = f"SELECT {', '.join(_RESULT_COLUMNS)} FROM results WHERE {where} ORDER BY {order}"
        cursor = self.conn.execute(sql + (f" LIMIT {int(limit)}" if limit is not None else ""), args)
        for values in cursor:
            yield dict(zip(_RESULT_COLUMNS, values))

    def result(self, sid: str, vid: str, key: str) -> dict | None:
        """One stored result by its configuration key (the primary key: one indexed read)."""
        rows = list(self._result_rows("session = ? AND version = ? AND key = ?", [sid, vid, key], "rowid"))
        return _decoded(rows[0]) if rows else None

    def known(self, sid: str, vid: str) -> StoredResults:
        """The version's results as a read-only mapping key -> result, read from the database on use."""
        return StoredResults(self, sid, vid)

    def count_results(
        self, sid: str, vid: str | None = None, run: str | None = None, measured: bool = False, upto: int | None = None
    ) -> int:
        """How many results are stored; measured: only those that ran and have a time; upto: a mark
        from last_result()."""
        where, args = _where(sid, vid, run)
        if upto is not None:
            where, args = where + " AND rowid <= ?", args + [upto]
        if measured:
            where += " AND status = 'ok' AND time_ms IS NOT NULL"
        return self.conn.execute(f"SELECT count(*) FROM results WHERE {where}", args).fetchone()[0]

    def by_time(self, sid: str, vid: str | None = None, limit: int | None = None):
        """Results that ran (status ok, with a time), fastest first, decoded one at a time as they are
        taken: the caller stops at the first one it wants (results_by_time index)."""
        where, args = _where(sid, vid, None)
        for row in self._result_rows(
            where + " AND status = 'ok' AND time_ms IS NOT NULL", args, "time_ms, rowid", limit
        ):
            yield _decoded(row)

    def last_result(self) -> int:
        """A mark of what is stored now (the highest rowid): reads given `upto` it see only results
        stored before it, the same ones as a count taken with it."""
        return self.conn.execute("SELECT max(rowid) FROM results").fetchone()[0] or 0

    def fastest(self, sid: str, n: int, upto: int | None = None) -> list[dict]:
        """The n results a table of n rows shows: the fastest that ran and were not found wrong, then
        the others (failures) in the order they were stored. upto: a mark from last_result()."""
        where, args = ("session = ?", [sid]) if upto is None else ("session = ? AND rowid <= ?", [sid, upto])
        ran = "status = 'ok' AND time_ms IS NOT NULL AND (verified IS NULL OR verified != 0)"
        shown = list(self._result_rows(f"{where} AND {ran}", args, "time_ms, rowid", n))
        if len(shown) < n:
            shown += self._result_rows(f"{where} AND NOT ({ran})", args, "rowid", n - len(shown))
        return [_decoded(r) for r in shown]

    def plot_pages(self, sid: str, upto: int | None = None, size: int = 2000, reference: tuple = ("", "")):
        """The versions, keys and times of every result in the order stored, as three columns per
        page of `size` results; a time is None when it is not trusted (engine/verdict.py trusted: ok
        and verified, or the `reference` (version, key) without a verdict). Nothing is JSON-decoded.
        Each page is its own query (the rowid's range, no index): a caller may pause between pages,
        as the UI's reader does so that 100,000 rows read on a thread leave the UI thread its turns."""
        sql = (
            "SELECT rowid, version, key, CASE WHEN status = 'ok' AND (verified = 1 OR (verified IS NULL AND "
            "version = ? AND key = ?)) THEN time_ms END FROM results NOT INDEXED WHERE session = ? AND rowid > ? "
            "AND rowid <= ? ORDER BY rowid LIMIT ?"
        )
        after, last = 0, self.last_result() if upto is None else upto
        while True:
            rows = self.conn.execute(sql, [*reference, sid, after, last, size]).fetchall()
            if not rows:
                return
            after = rows[-1][0]
            yield tuple(zip(*rows))[1:]
            if len(rows) < size:
                return

    def workers(self, sid: str, limit: int | None = None) -> set[str]:
        """The GPU workers that measured the session's results (at most `limit` of them)."""
        sql = "SELECT DISTINCT worker FROM results WHERE session = ? AND worker IS NOT NULL"
        sql += f" LIMIT {int(limit)}" if limit else ""
        return {w for (w,) in self.conn.execute(sql, [sid])}

    def known_for_worker(self, sid: str, vid: str) -> dict[str, dict]:
        """What a tuning job needs of the stored results, so it does not measure them again: key ->
        params (still JSON text: the worker decodes the few a search asks for), time and status."""
        sql = "SELECT key, params, time_ms, status FROM results WHERE session = ? AND version = ?"
        return {k: {"params": p, "time_ms": t, "status": s} for k, p, t, s in self.conn.execute(sql, [sid, vid])}

    def add_check(self, sid: str, vid: str, c: dict) -> None:
        """One configuration checked at one other size (gpu/worker/checking.entry)."""
        self._upsert(
            "checks",
            {
                "session": sid,
                "version": vid,
                "key": c["key"],
                "label": c["label"],
                "sizes": json.dumps(c.get("sizes") or {}),
                "status": c["status"],
                "ok": None if c.get("ok") is None else int(c["ok"]),
                "reason": c.get("reason") or "",
                "verdicts": json.dumps(c.get("verdicts") or []),
                "source": c.get("source"),
                "created": c.get("timestamp") or now(),
            },
        )

    def checks(self, sid: str, vid: str | None = None, key: str | None = None) -> list[dict]:
        where, args = "session = ?", [sid]
        if vid is not None:
            where, args = where + " AND version = ?", args + [vid]
        if key is not None:
            where, args = where + " AND key = ?", args + [key]
        return [
            dict(
                r,
                sizes=json.loads(r["sizes"]),
                verdicts=json.loads(r["verdicts"]),
                ok=None if r["ok"] is None else bool(r["ok"]),
            )
            for r in self._rows_where("checks", where, args, order_by="rowid")
        ]

    def set_reference(self, sid: str, vid: str, outputs: dict) -> None:
        """Reference outputs: kept in memory for this process, and written beside the database as
        one raw .npy per output (they can be large) by a background thread; the row, with the
        files' checksum, is written after them. They are reproducible (inputs come from the spec's
        seeds), so a process killed before the row is written only makes the next run recompute them."""
        import numpy as np  # not at import: listing sessions needs no numpy

        outputs = {k: np.asarray(v) for k, v in outputs.items()}
        self._refs[(sid, vid)] = outputs
        if self.path == ":memory:":  # another thread would open another, empty, database
            return self._write_reference(sid, vid, outputs)
        writer = threading.Thread(target=self._write_reference, args=(sid, vid, outputs), name="kt-tui-refs")
        writer.start()  # not a daemon: the interpreter waits for it at exit
        self._writers.append(writer)

    def flush_references(self) -> None:
        """Wait until every reference handed to set_reference is on disk."""
        while self._writers:
            self._writers.pop().join()

    def _write_reference(self, sid: str, vid: str, outputs: dict) -> None:
        with self._write_lock:
            self._write_reference_files(sid, vid, outputs)

    def _write_reference_files(self, sid: str, vid: str, outputs: dict) -> None:
        self.refs_dir.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        for name, arr in outputs.items():
            path = self.refs_dir / f"{sid}-{vid}.{name}.npy"
            _np().save(path, arr, allow_pickle=False)
            _hash_file(digest, path)
        summary = {k: [str(v.dtype), list(v.shape)] for k, v in outputs.items()}
        self._upsert(
            "refs",
            {
                "session": sid,
                "version": vid,
                "file": f"{sid}-{vid}",
                "sha256": digest.hexdigest(),
                "summary": json.dumps(summary),
            },
        )

    def reference(self, sid: str, vid: str) -> dict | None:
        """The reference outputs (memory-mapped from disk), or None when missing or damaged
        (then they are recomputed)."""
        if (sid, vid) in self._refs:
            return self._refs[(sid, vid)]
        rows = self._rows_where("refs", "session = ? AND version = ?", [sid, vid])
        if not rows:
            return None
        row = rows[0]
        if row["file"].endswith(".npz"):  # written by an older kt-tui
            return _read_npz(self.refs_dir / row["file"], row["sha256"])
        digest, out = hashlib.sha256(), {}
        try:
            for name in json.loads(row["summary"]):
                path = self.refs_dir / f"{row['file']}.{name}.npy"
                _hash_file(digest, path)
                out[name] = _np().load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError):
            return None
        if digest.hexdigest() != row["sha256"]:
            return None
        self._refs[(sid, vid)] = out
        return out

    # -- gates and events ----------------------------------------------------------------
    def gate(self, sid: str, key: str) -> dict | None:
        rows = self._rows_where("gates", "session = ? AND key = ?", [sid, key])
        if not rows:
            return None
        g = rows[0]
        g["body"] = json.loads(g["body"])
        g["decision"] = json.loads(g["decision"]) if g["decision"] else None
        return g

    def open_gate(self, sid: str, key: str, kind: str, title: str, body: dict) -> None:
        have = self.conn.execute("SELECT seq FROM gates WHERE session = ? AND key = ?", [sid, key]).fetchone()
        seq = (
            have[0] if have else self.conn.execute("SELECT count(*) FROM gates WHERE session = ?", [sid]).fetchone()[0]
        )
        self._upsert(
            "gates",
            {
                "session": sid,
                "key": key,
                "seq": seq,
                "kind": kind,
                "title": title,
                "body": json.dumps(body, default=str),
                "state": "pending",
                "decision": None,
                "decided": None,
                "created": now(),
            },
        )

    def decide_gate(self, sid: str, key: str, decision: dict) -> None:
        self._update(
            "gates", (sid, key), {"state": "decided", "decision": json.dumps(decision, default=str), "decided": now()}
        )

    def gates(self, sid: str) -> list[dict]:
        return [self.gate(sid, g["key"]) for g in self._rows_where("gates", "session = ?", [sid], order_by="seq")]

    # -- LLM calls and their results ---------------------------------------------------------
    def add_llm_call(self, sid: str, key: str, record: dict) -> int:
        """One attempt of one call, as the client reported it (never holds the API key). An attempt is
        written when it starts (state "running") and completed through its `row`: a row still running
        after the process is gone is a call that never completed."""
        row = {
            "purpose": record.get("purpose"),
            "model": record.get("model"),
            "base_url": record.get("base_url"),
            "messages": json.dumps(record.get("messages")),
            "reply": record.get("reply"),
            "error": record.get("error"),
            "tokens_in": record.get("tokens_in"),
            "tokens_out": record.get("tokens_out"),
            "latency_s": record.get("latency_s"),
            "attempt": record.get("attempt"),
            "streamed": int(bool(record.get("streamed"))),
            "state": record.get("state") or "done",
        }
        if record.get("row") is not None:
            self._update("llm_calls", record["row"], row)
            return record["row"]
        return self._insert("llm_calls", {"session": sid, "key": key, **row, "created": now()})

    def llm_calls(self, sid: str) -> list[dict]:
        return [
            dict(r, messages=json.loads(r["messages"]))
            for r in self._rows_where("llm_calls", "session = ?", [sid], order_by="id")
        ]

    def put_llm_result(self, sid: str, key: str, value, text: str, by: str) -> None:
        self._upsert(
            "llm_results",
            {"session": sid, "key": key, "value": json.dumps(value), "text": text, "by": by, "created": now()},
        )

    def llm_result(self, sid: str, key: str) -> dict | None:
        rows = self._rows_where("llm_results", "session = ? AND key = ?", [sid, key])
        return dict(rows[0], value=json.loads(rows[0]["value"])) if rows else None

    # -- plan steps ----------------------------------------------------------------------------
    def put_step(self, sid: str, step_id: str, **fields) -> None:
        have = self.conn.execute("SELECT seq FROM steps WHERE session = ? AND id = ?", [sid, step_id]).fetchone()
        if not have and "seq" not in fields:
            fields["seq"] = self.conn.execute("SELECT count(*) FROM steps WHERE session = ?", [sid]).fetchone()[0]
        self._upsert("steps", {"session": sid, "id": step_id, **fields, "updated": now()})

    def steps(self, sid: str) -> list[dict]:
        return self._rows_where("steps", "session = ?", [sid], order_by="seq")

    def add_event(self, sid: str, kind: str, data: dict) -> None:
        self._insert("events", {"session": sid, "ts": now(), "kind": kind, "data": json.dumps(data, default=str)})

    def events(self, sid: str) -> list[dict]:
        return [
            dict(e, data=json.loads(e["data"])) for e in self._rows_where("events", "session = ?", [sid], order_by="id")
        ]


class StoredResults:
    """A version's stored results as a read-only mapping key -> result; each use is one query."""

    def __init__(self, store: Store, sid: str, vid: str):
        self.store, self.sid, self.vid = store, sid, vid

    def __contains__(self, key) -> bool:
        sql = "SELECT 1 FROM results WHERE session = ? AND version = ? AND key = ?"
        return self.store.conn.execute(sql, [self.sid, self.vid, key]).fetchone() is not None

    def get(self, key, default=None):
        return self.store.result(self.sid, self.vid, key) or default

    def __getitem__(self, key) -> dict:
        r = self.get(key)
        if r is None:
            raise KeyError(key)
        return r

    def __len__(self) -> int:
        return self.store.count_results(self.sid, self.vid)

    def __iter__(self):
        sql = "SELECT key FROM results WHERE session = ? AND version = ? ORDER BY rowid"
        return iter([k for (k,) in self.store.conn.execute(sql, [self.sid, self.vid])])

    def keys(self):
        return list(self)


def _where(sid: str, vid: str | None, run: str | None) -> tuple[str, list]:
    where, args = "session = ?", [sid]
    if vid is not None:
        where, args = where + " AND version = ?", args + [vid]
    if run is not None:
        where, args = where + " AND run = ?", args + [run]
    return where, args


def _names(row: dict) -> str:
    return ", ".join(f"[{c}]" for c in row)


def _values(row: dict) -> list:
    """The row's values as SQLite takes them; a table or list as JSON text (as sqlite-utils wrote them);
    every text scrubbed of secrets (the LLM client scrubs first: this is the second line)."""
    return [
        scrub(json.dumps(v, default=repr, ensure_ascii=False)) if isinstance(v, (dict, list, tuple)) else scrub(v)
        for v in row.values()
    ]


def _decoded(row: dict) -> dict:
    row["params"] = json.loads(row["params"])
    row["times"] = json.loads(row["times"]) if row["times"] else None
    row["verified"] = None if row["verified"] is None else bool(row["verified"])
    row["verdicts"] = json.loads(row["verdicts"]) if row.get("verdicts") else None
    return row


def _hash_file(digest, path: Path) -> None:
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            digest.update(chunk)


def _read_npz(path: Path, sha256: str) -> dict | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != sha256:
        return None
    with _np().load(io.BytesIO(data)) as z:
        return {k.removeprefix("out_"): z[k] for k in z.files}


def _np():
    import numpy  # not at import: listing sessions needs no numpy

    return numpy
