"""The session store: what kt-tui keeps of a session (store/db.py holds the file and its schema).
Every method names its session; store/session.py's SessionStore is the view of one session."""

from __future__ import annotations

import atexit
import json
import uuid
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..records import StoredGate
from . import db as database
from .db import _TABLES, now
from .lock import SessionLocked, acquire, held_here, holder, lock_path, release
from .refs import ReferenceFiles
from .results import ResultStore
from .rows import gate_from_row
from .sound import check_session, no_version, quoted

LISTED = 1000  # characters of each value sessions() reads


class Store(ResultStore, ReferenceFiles):
    """Sessions, their kernel versions, runs, results, checks, reference outputs, gates, LLM calls,
    plan steps and events, in one SQLite file (with the reference outputs beside it)."""

    # -- sessions ------------------------------------------------------------------------
    def create_session(self, **fields: Any) -> str:
        self.check_writable()
        sid = fields.pop("id", None) or uuid.uuid4().hex[:8]
        row = {"id": sid, "created": now(), "updated": now(), "state": "new", **fields}
        self._insert("sessions", row)
        self._sound.add(sid)
        database.SESSIONS_HERE.append(sid)
        return sid

    def update_session(self, sid: str, **fields: Any) -> None:
        self._update("sessions", sid, {**fields, "updated": now()})

    def session(self, sid: str) -> dict[str, Any] | None:
        """The session's row; DamagedSession (store/sound.py) the first time a session this process did
        not make is read, when any of its rows is not as kt-tui writes it."""
        rows = self._rows_where("sessions", "id = ?", [sid])
        if not rows:
            rows = self._rows_where("sessions", "substr(id, 1, ?) = ?", [len(sid), sid])
            if len(rows) != 1:
                return None
        row = rows[0]
        if row["id"] not in self._sound:
            check_session(self.conn, _TABLES, row["id"], self.path)
            self._sound.add(row["id"])
        return row

    def sessions(self) -> list[dict[str, Any]]:
        """Every session's row for a listing: each value cut to LISTED characters and the settings
        left out, so a hand-made 400 MB value stays in the file (session(sid) reads a whole row)."""
        names = [r[1] for r in self.conn.execute("PRAGMA table_info(sessions)") if r[1] != "settings"]
        typed = _TABLES["sessions"][0]
        cut = ", ".join(_listed(n, typed.get(n)) for n in names)
        cursor = self.conn.execute(f"SELECT {cut} FROM sessions ORDER BY created DESC, rowid DESC")
        return [dict(zip(names, row)) for row in cursor]

    def delete_session(self, sid: str) -> None:
        """The session and every row and reference file that belongs to it. SessionLocked when a
        process (this one included) is running it."""
        self.check_writable()
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

    def latest_session(self) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT id FROM sessions ORDER BY created DESC, rowid DESC LIMIT 1").fetchone()
        return self.session(row[0]) if row else None

    # -- one process runs a session at a time ---------------------------------------------
    def lock(self, sid: str) -> None:
        """Take the session for this process (store/lock.py); SessionLocked when another live
        process holds it. Released by unlock() or when this process ends, however it ends."""
        self.check_writable()
        acquire(lock_path(self.path, sid), sid, now())
        database.SESSIONS_HERE.append(sid)
        atexit.register(self.unlock, sid)

    def unlock(self, sid: str) -> None:
        release(lock_path(self.path, sid))

    def lock_holder(self, sid: str) -> dict[str, Any] | None:
        """pid, host, since and started of the process that holds the session, or None."""
        return holder(lock_path(self.path, sid))

    # -- kernel versions -----------------------------------------------------------------
    def add_version(
        self,
        sid: str,
        vid: str,
        source: str,
        spec_toml: str,
        spec: dict[str, Any],
        parent: str | None = None,
        label: str = "",
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

    def update_version(self, sid: str, vid: str, spec_toml: str, spec: dict[str, Any]) -> None:
        self._update("versions", (sid, vid), {"spec_toml": spec_toml, "spec_json": json.dumps(spec)})

    def version(self, sid: str, vid: str) -> dict[str, Any] | None:
        rows = self._rows_where("versions", "session = ? AND id = ?", [sid, vid])
        return self._checked(sid, rows)[0] if rows else None

    def versions(self, sid: str) -> list[dict[str, Any]]:
        return self._checked(sid, self._rows_where("versions", "session = ?", [sid], order_by="rowid"))

    def original(self, sid: str) -> dict[str, Any]:
        """The session's first kernel version (its original); DamagedSession when none is stored."""
        rows = self.versions(sid)
        if not rows:
            raise no_version(self.path, sid)
        return rows[0]

    def _checked(self, sid: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Version rows whose specs read files only beside the session's kernel (kernel/spec_checks.py)."""
        if any('"base_dir"' in (r.get("spec_json") or "") for r in rows):
            session = self.session(sid) or {}
            for r in rows:
                _check_folder(r.get("spec_json"), session.get("kernel_path"))
        return rows

    # -- gates and events ----------------------------------------------------------------
    def gate(self, sid: str, key: str) -> StoredGate | None:
        rows = self._rows_where("gates", "session = ? AND key = ?", [sid, key])
        return gate_from_row(rows[0]) if rows else None

    def open_gate(self, sid: str, key: str, kind: str, title: str, body: dict[str, Any]) -> None:
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

    def decide_gate(self, sid: str, key: str, decision: dict[str, Any]) -> None:
        self._update(
            "gates", (sid, key), {"state": "decided", "decision": json.dumps(decision, default=str), "decided": now()}
        )

    def gates(self, sid: str) -> list[StoredGate]:
        return [gate_from_row(g) for g in self._rows_where("gates", "session = ?", [sid], order_by="seq")]

    # -- LLM calls and their results ---------------------------------------------------------
    def add_llm_call(self, sid: str, key: str, record: dict[str, Any]) -> int:
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
            return int(record["row"])
        return self._insert("llm_calls", {"session": sid, "key": key, **row, "created": now()})

    def llm_calls(self, sid: str) -> list[dict[str, Any]]:
        return [
            dict(r, messages=json.loads(r["messages"]))
            for r in self._rows_where("llm_calls", "session = ?", [sid], order_by="id")
        ]

    def put_llm_result(self, sid: str, key: str, value: Any, text: str, by: str) -> None:
        self._upsert(
            "llm_results",
            {"session": sid, "key": key, "value": json.dumps(value), "text": text, "by": by, "created": now()},
        )

    def llm_result(self, sid: str, key: str) -> dict[str, Any] | None:
        rows = self._rows_where("llm_results", "session = ? AND key = ?", [sid, key])
        return dict(rows[0], value=json.loads(rows[0]["value"])) if rows else None

    # -- plan steps ----------------------------------------------------------------------------
    def put_step(self, sid: str, step_id: str, **fields: Any) -> None:
        have = self.conn.execute("SELECT seq FROM steps WHERE session = ? AND id = ?", [sid, step_id]).fetchone()
        if not have and "seq" not in fields:
            fields["seq"] = self.conn.execute("SELECT count(*) FROM steps WHERE session = ?", [sid]).fetchone()[0]
        self._upsert("steps", {"session": sid, "id": step_id, **fields, "updated": now()})

    def steps(self, sid: str) -> list[dict[str, Any]]:
        return self._rows_where("steps", "session = ?", [sid], order_by="seq")

    def add_event(self, sid: str, kind: str, data: dict[str, Any]) -> None:
        self._insert("events", {"session": sid, "ts": now(), "kind": kind, "data": json.dumps(data, default=str)})

    def events(self, sid: str) -> list[dict[str, Any]]:
        return [
            dict(e, data=json.loads(e["data"])) for e in self._rows_where("events", "session = ?", [sid], order_by="id")
        ]


def _check_folder(spec_json: str | None, kernel_path: str | None) -> None:
    """A spec read back from a session database reads files (inputs, a reference, the user's Python)
    only in its session's kernel folder or below it (issue 36, item 3): a hand-edited `base_dir`
    cannot point the GPU worker at another folder's Python. A spec that reads no file may keep any
    folder (`--spec` from elsewhere). Plain JSON here: listing sessions loads no spec parser."""
    try:
        plain = json.loads(spec_json or "{}")
    except (ValueError, RecursionError):
        return  # the spec's reader says what is wrong with it
    base = plain.get("base_dir") if isinstance(plain, dict) else None
    if not isinstance(base, str) or not kernel_path or not _reads_files(plain):
        return
    folder, where = Path(kernel_path).parent.resolve(), Path(base).resolve()
    if where != folder and folder not in where.parents:
        raise UserError(
            f"the stored spec: base_dir: {base} is outside the session's kernel folder {folder}; "
            "a stored spec reads its files and Python functions only beside its kernel"
        )


def _reads_files(plain: dict[str, Any]) -> bool:
    args = plain.get("args") if isinstance(plain.get("args"), list) else []
    named = any(isinstance(a, dict) and (a.get("file") or a.get("function")) for a in args or [])
    verify = plain.get("verify")
    return (
        named or bool(plain.get("reference") or plain.get("cmem_args")) or verify not in (None, "elementwise", "none")
    )


def _listed(name: str, kind: type | None) -> str:
    """A sessions column as the listing reads it: text cut to LISTED characters, a blob or a value
    of another type than the column's (a hand-edited file: resume and export refuse it) as NULL."""
    q = quoted(name)  # the table's own column name
    if kind is float:
        return f"CASE WHEN typeof({q}) IN ('real', 'integer') THEN {q} END"
    if kind is int:
        return f"CASE WHEN typeof({q}) = 'integer' THEN {q} END"
    return f"CASE typeof({q}) WHEN 'text' THEN substr({q}, 1, {LISTED}) WHEN 'blob' THEN NULL ELSE {q} END"
