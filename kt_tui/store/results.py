"""Runs, results and checks of the store: written as they come, read back as records
(kt_tui/records.py) through store/rows.py, the one place that knows their columns."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..records import Check, Known, Result, Run, as_result
from ..redact import scrub
from .db import Database, now
from .rows import (
    KNOWN,
    MEASURED,
    RESULT_COLUMNS,
    RESULT_UPSERT,
    SHOWN,
    TIMES,
    TRUSTED_TIME,
    check_from_row,
    check_row,
    known_from_row,
    result_changes,
    result_from_row,
    result_row,
    run_from_row,
)


class ResultStore(Database):
    def put_run(self, sid: str, rid: str, **fields: Any) -> None:
        self._upsert("runs", {"session": sid, "id": rid, **fields})

    def run(self, sid: str, rid: str) -> Run | None:
        rows = self._rows_where("runs", "session = ? AND id = ?", [sid, rid])
        return run_from_row(rows[0]) if rows else None

    def runs(self, sid: str) -> list[Run]:
        return [run_from_row(r) for r in self._rows_where("runs", "session = ?", [sid], order_by="rowid")]

    def add_result(self, sid: str, vid: str, rid: str, r: Result | Mapping[str, Any]) -> None:
        """One result, committed at once (a killed process keeps every configuration it reported).
        Plain SQL: sqlite-utils' upsert inspects the table on every call, which costs more than the write."""
        self.add_results(sid, vid, rid, [r])

    def add_results(self, sid: str, vid: str, rid: str, rs: Iterable[Result | Mapping[str, Any]]) -> None:
        """Several results in one transaction: all of them are stored, or none."""
        stamp = now()
        rows = [result_row(sid, vid, rid, as_result(r), stamp, scrub) for r in rs]
        with self.conn as conn:
            conn.executemany(RESULT_UPSERT, rows)

    def mark_result(self, sid: str, vid: str, key: str, **changes: Any) -> None:
        """Change a stored result after the fact (a check at another size found it wrong)."""
        self._update("results", (sid, vid, key), result_changes(changes))

    def results(self, sid: str, vid: str | None = None) -> list[Result]:
        """Every result in the order they were stored: for exports and small sessions. The engine
        and the UI read counts, keys, the fastest rows and single rows instead (below)."""
        return list(self.iter_results(sid, vid))

    def iter_results(self, sid: str, vid: str | None = None) -> Iterator[Result]:
        """Every result (of `vid`) in the order stored, decoded one at a time: an export of 100,000
        results holds one of them at once."""
        where, args = _where(sid, vid, None)
        return self._result_rows(where, args, "rowid")

    def result_times(self, sid: str, vid: str) -> list[tuple[str, float | None, str, int | None]]:
        """(key, time, status, verified) of each result of `vid`, in the order stored: what a plot draws."""
        return self.conn.execute(
            f"SELECT {TIMES} FROM results WHERE session = ? AND version = ? ORDER BY rowid", [sid, vid]
        ).fetchall()

    def result_columns(self, sid: str, columns: tuple[str, ...], size: int = 5000) -> Iterator[tuple[Any, ...]]:
        """`columns` (of RESULT_COLUMNS) of every result in the order stored, as plain rows, JSON
        columns still text: an export of 100,000 results writes them out without making records."""
        unknown = set(columns) - set(RESULT_COLUMNS)
        if unknown or not columns:
            raise ValueError(f"results have no columns {sorted(unknown)}")
        return self._column_pages(sid, columns, size)

    def _column_pages(self, sid: str, columns: tuple[str, ...], size: int) -> Iterator[tuple[Any, ...]]:
        # by rowid, a page a query (as plot_pages): the session's index would sort every row first
        sql = (
            f"SELECT rowid, {', '.join(columns)} FROM results NOT INDEXED WHERE session = ? AND rowid > ? "
            "ORDER BY rowid LIMIT ?"
        )
        after = 0
        while rows := self.conn.execute(sql, [sid, after, size]).fetchall():
            after = rows[-1][0]
            for r in rows:
                yield r[1:]
            if len(rows) < size:
                return

    def _result_rows(self, where: str, args: list[Any], order: str, limit: int | None = None) -> Iterator[Result]:
        sql = f"SELECT {', '.join(RESULT_COLUMNS)} FROM results WHERE {where} ORDER BY {order}"
        cursor = self.conn.execute(sql + (f" LIMIT {int(limit)}" if limit is not None else ""), args)
        for values in cursor:
            yield result_from_row(values)

    def result(self, sid: str, vid: str, key: str) -> Result | None:
        """One stored result by its configuration key (the primary key: one indexed read)."""
        return next(self._result_rows("session = ? AND version = ? AND key = ?", [sid, vid, key], "rowid"), None)

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
            where += f" AND {MEASURED}"
        count: int = self.conn.execute(f"SELECT count(*) FROM results WHERE {where}", args).fetchone()[0]
        return count

    def by_time(self, sid: str, vid: str | None = None, limit: int | None = None) -> Iterator[Result]:
        """Results that ran (status ok, with a time), fastest first, decoded one at a time as they are
        taken: the caller stops at the first one it wants (results_by_time index)."""
        where, args = _where(sid, vid, None)
        return self._result_rows(f"{where} AND {MEASURED}", args, "time_ms, rowid", limit)

    def last_result(self) -> int:
        """A mark of what is stored now (the highest rowid): reads given `upto` it see only results
        stored before it, the same ones as a count taken with it."""
        mark: int = self.conn.execute("SELECT max(rowid) FROM results").fetchone()[0] or 0
        return mark

    def fastest(self, sid: str, n: int, upto: int | None = None) -> list[Result]:
        """The n results a table of n rows shows: the fastest that ran and were not found wrong, then
        the others (failures) in the order they were stored. upto: a mark from last_result()."""
        where, args = ("session = ?", [sid]) if upto is None else ("session = ? AND rowid <= ?", [sid, upto])
        shown = list(self._result_rows(f"{where} AND {SHOWN}", args, "time_ms, rowid", n))
        if len(shown) < n:
            shown += self._result_rows(f"{where} AND NOT ({SHOWN})", args, "rowid", n - len(shown))
        return shown

    def plot_pages(
        self, sid: str, upto: int | None = None, size: int = 2000, reference: tuple[str, str] = ("", "")
    ) -> Iterator[tuple[tuple[Any, ...], ...]]:
        """The versions, keys and times of every result in the order stored, as three columns per
        page of `size` results; a time is None when it is not trusted (records.trusted: ok and
        verified, or the `reference` (version, key) without a verdict). Nothing is JSON-decoded.
        Each page is its own query (the rowid's range, no index): a caller may pause between pages,
        as the UI's reader does so that 100,000 rows read on a thread leave the UI thread its turns."""
        sql = (
            f"SELECT rowid, version, key, {TRUSTED_TIME} FROM results NOT INDEXED WHERE session = ? AND rowid > ? "
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

    def known_for_worker(self, sid: str, vid: str) -> dict[str, Known]:
        """What a tuning job needs of the stored results, so it does not measure them again: key ->
        params (still JSON text: the worker decodes the few a search asks for), time and status."""
        sql = f"SELECT {KNOWN} FROM results WHERE session = ? AND version = ?"
        return dict(known_from_row(row) for row in self.conn.execute(sql, [sid, vid]))

    def add_check(self, sid: str, vid: str, c: Check | Mapping[str, Any]) -> None:
        """One configuration checked at one other size (gpu/checking.entry)."""
        self._upsert("checks", check_row(sid, vid, c, now()))

    def put_profile(self, sid: str, vid: str, key: str, state: str, summary: Mapping[str, Any]) -> None:
        """A result's profile (gpu/profile.py), or why there is none ("absent", "denied", ...)."""
        self._upsert(
            "profiles",
            {"session": sid, "version": vid, "key": key, "state": state, "summary": dict(summary), "created": now()},
        )

    def profiles(self, sid: str) -> list[dict[str, Any]]:
        """The session's profiles in the order made: version, key, state, created and the summary
        as stored (decoded JSON, untrusted: engine/profiles.py reads it)."""
        out = []
        for row in self._rows_where("profiles", "session = ?", [sid], order_by="rowid"):
            try:
                row["summary"] = json.loads(row["summary"] or "{}")
            except (ValueError, RecursionError):
                row["summary"] = {}
            out.append(row)
        return out

    def checks(self, sid: str, vid: str | None = None, key: str | None = None) -> list[Check]:
        where, args = "session = ?", [sid]
        if vid is not None:
            where, args = where + " AND version = ?", args + [vid]
        if key is not None:
            where, args = where + " AND key = ?", args + [key]
        return [check_from_row(r) for r in self._rows_where("checks", where, args, order_by="rowid")]


class StoredResults:
    """A version's stored results as a read-only mapping key -> result; each use is one query."""

    def __init__(self, store: ResultStore, sid: str, vid: str):
        self.store, self.sid, self.vid = store, sid, vid

    def __contains__(self, key: object) -> bool:
        sql = "SELECT 1 FROM results WHERE session = ? AND version = ? AND key = ?"
        return self.store.conn.execute(sql, [self.sid, self.vid, key]).fetchone() is not None

    def get(self, key: str, default: Result | None = None) -> Result | None:
        return self.store.result(self.sid, self.vid, key) or default

    def __getitem__(self, key: str) -> Result:
        r = self.get(key)
        if r is None:
            raise KeyError(key)
        return r

    def __len__(self) -> int:
        return self.store.count_results(self.sid, self.vid)

    def __iter__(self) -> Iterator[str]:
        sql = "SELECT key FROM results WHERE session = ? AND version = ? ORDER BY rowid"
        return iter([k for (k,) in self.store.conn.execute(sql, [self.sid, self.vid])])

    def keys(self) -> list[str]:
        return list(self)


def _where(sid: str, vid: str | None, run: str | None) -> tuple[str, list[Any]]:
    where, args = "session = ?", [sid]
    if vid is not None:
        where, args = where + " AND version = ?", args + [vid]
    if run is not None:
        where, args = where + " AND run = ?", args + [run]
    return where, args
