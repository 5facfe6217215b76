"""A stored session's rows as kt-tui writes them: every column of the type its table declares, the
JSON columns valid JSON, the columns each reader needs present. A hand-edited or damaged database
(text in a time column, a blob for a kernel, a gate whose body is not JSON) is refused with one line
naming the table, column and row the first time its session is read, instead of failing as an
internal error wherever the value is first used (the listing, the export, the engine, the app)."""

from __future__ import annotations

import sqlite3
from typing import Any

from ..errors import UserError

_KINDS: dict[type, tuple[str, ...]] = {str: ("text",), int: ("integer",), float: ("real", "integer")}
_NAMES = {str: "text", int: "an integer", float: "a number"}
# JSON written by kt-tui and read back with json.loads (versions.spec_json and results.params have
# their own checks, naming the field or the result; sessions.settings, device and check_state are
# read tolerantly)
JSON_COLUMNS = {
    "results": ("times", "verdicts"),
    "gates": ("body", "decision"),
    "checks": ("sizes", "verdicts"),
    "llm_calls": ("messages",),  # the report and the session screen list each call's messages
    "llm_results": ("value",),
    "events": ("data",),
}
REQUIRED = {
    "versions": ("id", "source", "spec_json"),
    "results": ("key",),
    "gates": ("key", "body"),
    "llm_calls": ("messages",),  # JSON null where a call had none: never SQL NULL
    "llm_results": ("value",),
    "events": ("data",),
}


class DamagedSession(UserError):
    """A stored row that kt-tui did not write as it is."""


def quoted(name: str) -> str:
    """An SQL name quoted, as written in the table."""
    return '"' + name.replace('"', '""') + '"'


def _problems(table: str, columns: dict[str, type]) -> list[tuple[str, str]]:
    """(SQL condition true for a bad value, what is wrong) for each column of `table`."""
    out = []
    for name, kind in columns.items():
        q = quoted(name)
        allowed = ", ".join(f"'{k}'" for k in ("null", *_KINDS[kind]))
        out.append((f"typeof({q}) NOT IN ({allowed})", f"{name}: not {_NAMES[kind]}"))
        if name in REQUIRED.get(table, ()):
            out.append((f"{q} IS NULL", f"{name}: missing"))
        if name in JSON_COLUMNS.get(table, ()):
            # Python's json writes a float that is no number as NaN or Infinity and reads it back: valid here
            numbers = f"replace(replace(replace({q}, '-Infinity', ' 0 '), 'Infinity', ' 0 '), 'NaN', ' 0 ')"
            out.append((f"(typeof({q}) = 'text' AND NOT json_valid({numbers}))", f"{name}: not JSON"))
    return out


def check_session(
    conn: sqlite3.Connection, tables: dict[str, tuple[dict[str, type], Any]], sid: str, path: str
) -> None:
    """DamagedSession naming the first bad value of session `sid`'s rows, in any table."""
    for table, (columns, pk) in tables.items():
        if table == "locks":
            continue  # no longer read (store/lock.py)
        have = {r[1] for r in conn.execute(f"PRAGMA table_info([{table}])")}  # an older file may lack some
        keys = [k for k in (pk if isinstance(pk, tuple) else (pk,)) if k != "session"]
        if not have or not set(keys) <= have:
            continue
        where = "id = ?" if table == "sessions" else "session = ?"
        problems = _problems(table, {c: t for c, t in columns.items() if c in have})
        why = "CASE " + " ".join(f"WHEN {cond} THEN '{what}'" for cond, what in problems) + " END"
        row_key = " || '/' || ".join(f"CAST({quoted(k)} AS TEXT)" for k in keys)
        sql = (
            f"SELECT why, what FROM (SELECT {why} AS why, substr({row_key}, 1, 80) AS what "
            f"FROM [{table}] WHERE {where}) WHERE why IS NOT NULL LIMIT 1"
        )
        found = conn.execute(sql, [sid]).fetchone()
        if found:
            column, wrong = found[0].split(": ", 1)
            row = "" if table == "sessions" else f" (row {found[1]!r})"
            raise DamagedSession(
                f"{path}: session {sid}: {table}.{column}{row} is {wrong} (a damaged or hand-edited database): "
                "restore it from a copy or delete the session (`d` in `kt-tui sessions`)"
            )


def no_version(path: str, sid: str) -> DamagedSession:
    """For a session read back with no kernel version (the original) stored."""
    return DamagedSession(
        f"{path}: session {sid} has no kernel version stored (a damaged or hand-edited database, or a session "
        "still being made): nothing to open; delete the session (`d` in `kt-tui sessions`)"
    )
