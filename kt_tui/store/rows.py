"""Rows <-> records: the one place that knows the columns of results, runs, checks and gates
(kt_tui/records.py). Everything above the store reads the records' attributes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import Any

from ..records import Check, Known, Result, Run, StoredGate
from .jsontext import dumps

RESULT_COLUMNS = (
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
RESULT_UPSERT = (
    f"INSERT INTO results ({', '.join(RESULT_COLUMNS)}) VALUES ({', '.join('?' * len(RESULT_COLUMNS))}) "
    "ON CONFLICT(session, version, key) DO UPDATE SET " + ", ".join(f"{c} = excluded.{c}" for c in RESULT_COLUMNS[3:])
)
# what the results_by_time index answers: results that ran and have a time
MEASURED = "status = 'ok' AND time_ms IS NOT NULL"
# what a table shows first: those that ran and were not found wrong
SHOWN = MEASURED + " AND (verified IS NULL OR verified != 0)"
# the plot's time of a row: trusted (records.trusted) or None; two parameters, the reference's version and key
TRUSTED_TIME = (
    "CASE WHEN status = 'ok' AND (verified = 1 OR (verified IS NULL AND version = ? AND key = ?)) THEN time_ms END"
)
TIMES = "key, time_ms, status, verified"  # result_times' columns
KNOWN = "key, params, time_ms, status"  # known_for_worker's columns

_RESULT_CHANGES = {"status", "error", "verified", "first_bad", "max_abs_err", "time_ms", "origin"}


def result_row(sid: str, vid: str, rid: str, r: Result, stamp: str, scrub: Any) -> tuple[Any, ...]:
    """The results row of one record, in RESULT_COLUMNS' order; texts that may hold secrets scrubbed."""
    return (
        sid,
        vid,
        r.key,
        rid,
        dumps(r.params if type(r.params) is dict else dict(r.params)),
        r.time_ms,
        dumps(r.times),  # a tuple is written as a JSON list
        r.status,
        scrub(r.error),
        None if r.verified is None else int(r.verified),
        r.max_abs_err,
        r.first_bad,
        r.compile_ms,
        scrub(r.source),
        r.origin,
        r.timestamp or stamp,
        None if r.verdicts is None else dumps(r.verdicts),
        r.worker,
        r.device if r.worker else None,
    )


def result_from_row(values: Iterable[Any]) -> Result:
    """The record of one row read in RESULT_COLUMNS' order (unpacked in place: a resume or an export
    decodes up to 100,000 of them)."""
    (_, version, key, run, params, time_ms, times, status, error, verified, max_abs_err, first_bad, compile_ms) = (
        row := tuple(values)
    )[:13]
    source, origin, created, verdicts, worker, device = row[13:]
    return Result(
        key,
        json.loads(params),
        status,
        time_ms,
        _tuple(times),
        error,
        None if verified is None else bool(verified),
        max_abs_err,
        first_bad,
        compile_ms,
        source,
        created,
        _tuple(verdicts),
        version,
        run,
        origin,
        worker,
        device,
    )


def _tuple(text: str | None) -> tuple[Any, ...] | None:
    """A stored JSON list as a tuple; None for no text or JSON null."""
    if not text or text == "null":
        return None
    return tuple(json.loads(text))


def result_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """mark_result's changes as columns: verified as 0/1; refused for what a stored result cannot change."""
    bad = set(changes) - _RESULT_CHANGES
    if bad:
        raise ValueError(f"a stored result's {', '.join(sorted(bad))} cannot be changed")
    out = dict(changes)
    if out.get("verified") is not None:
        out["verified"] = int(out["verified"])
    return out


def known_from_row(values: tuple[Any, ...]) -> tuple[str, Known]:
    key, params, time_ms, status = values
    return key, Known(params, time_ms, status)


def run_from_row(row: Mapping[str, Any]) -> Run:
    return Run(**{f.name: row[f.name] for f in fields(Run)})


def check_row(sid: str, vid: str, c: Check | Mapping[str, Any], stamp: str) -> dict[str, Any]:
    """The checks row of one check, given as a record or as the worker's entry (gpu/checking.entry)."""
    get = (lambda name: getattr(c, name)) if isinstance(c, Check) else c.get
    ok = get("ok")
    return {
        "session": sid,
        "version": vid,
        "key": get("key"),
        "label": get("label"),
        "sizes": json.dumps(dict(get("sizes") or {})),
        "status": get("status"),
        "ok": None if ok is None else int(ok),
        "reason": get("reason") or "",
        "verdicts": json.dumps([dict(v) for v in get("verdicts") or []]),
        "source": get("source"),
        "created": (c.created if isinstance(c, Check) else c.get("timestamp")) or stamp,
    }


def check_from_entry(vid: str, entry: Mapping[str, Any], **over: Any) -> Check:
    """A check as the worker reports it (gpu/checking.entry) or a recorded cache keeps it, as a record."""
    e = {**entry, **over}
    return Check(
        version=vid,
        key=e["key"],
        label=e["label"],
        ok=e.get("ok"),
        status=e["status"],
        sizes=e.get("sizes") or {},
        reason=e.get("reason"),
        verdicts=tuple(e.get("verdicts") or ()),
        source=e.get("source"),
        created=e.get("timestamp"),
    )


def check_entry(c: Check) -> dict[str, Any]:
    """What a cachefile's header keeps of a check (gpu/simcache.recorded_checks reads it back)."""
    return {
        "label": c.label,
        "sizes": dict(c.sizes),
        "ok": c.ok,
        "status": c.status,
        "reason": c.reason,
        "verdicts": [dict(v) for v in c.verdicts or ()],
    }


def check_from_row(row: Mapping[str, Any]) -> Check:
    return Check(
        version=row["version"],
        key=row["key"],
        label=row["label"],
        ok=None if row["ok"] is None else bool(row["ok"]),
        status=row["status"],
        sizes=json.loads(row["sizes"]),
        reason=row["reason"],
        verdicts=tuple(json.loads(row["verdicts"])),
        source=row["source"],
        created=row["created"],
    )


def gate_from_row(row: Mapping[str, Any]) -> StoredGate:
    return StoredGate(
        key=row["key"],
        kind=row["kind"],
        title=row["title"],
        state=row["state"],
        seq=row["seq"],
        body=json.loads(row["body"]),
        decision=json.loads(row["decision"]) if row["decision"] else None,
        created=row["created"],
        decided=row["decided"],
    )
