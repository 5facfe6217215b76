"""Plain-data views of a stored session, for `--json` output and the sessions list."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from types import SimpleNamespace
from typing import Any

from ..errors import UserError
from ..records import Result, config_key, replace, trusted
from ..store import SessionStore, Store
from .strength import check_line, check_state, vacuous_why
from .strength import summary as check_summary
from .verdict import verdict_text

STEP_STATE = {"approve": "approved", "edit": "edited", "skip": "skipped", "stop": "stopped"}


def _plain(text: str | None) -> dict[str, Any]:
    """A stored spec's JSON for a label; damage is reported where the spec is read (spec_from_plain)."""
    try:
        value = json.loads(text or "{}")
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def unverified_reason(store: Store, sid: str) -> str | None:
    """Why the session's results are not checked (the spec says verify = "none", or the check proves
    nothing), or None."""
    versions = store.versions(sid)
    if not versions:
        return None
    spec = _plain(versions[0]["spec_json"])
    if spec.get("verify") != "none":
        state = check_state(SessionStore(store, sid))
        return check_line(state) if state and state.get("state") == "vacuous" else None
    return f'UNVERIFIED: outputs are not checked (verify = "none": {spec.get("verify_reason") or "no reason given"})'


def expected_from(store: Store, sid: str) -> str | None:
    """What the outputs are compared with when the spec names a reference kernel, or None."""
    versions = store.versions(sid)
    spec = _plain(versions[0]["spec_json"]) if versions else {}
    if not isinstance(spec.get("reference"), dict):
        return None
    from ..kernel import refkernel  # here: listing sessions needs no spec parser (numpy)

    return "expected outputs: " + refkernel.describe(SimpleNamespace(reference=spec["reference"]))


def fastest_trusted(
    by_time: Callable[[str], Iterable[Result]], versions: Iterable[str], original: str, reference_key: str
) -> Result | None:
    """The one best: the fastest trusted result of these versions (the accepted ones; the original
    at its baseline counts when nothing checked it). A rejected or failed step's kernel is never
    among them, however fast. The engine, `--json`, the report and the export all ask this."""
    firsts = (
        next((replace(r, version=v) for r in by_time(v) if trusted(r, v == original and r.key == reference_key)), None)
        for v in versions
    )
    return min((r for r in firsts if r is not None), key=lambda r: (r.time_ms or 0.0, r.version, r.key), default=None)


def refused_why(store: Store, sid: str) -> str | None:
    """Why the check refused the session's original (out of bounds, ...), or None."""
    refused = (check_state(SessionStore(store, sid)) or {}).get("refused")
    return str(refused) if refused else None


def accepted_versions(store: Store, sid: str) -> list[str]:
    """The original and every version whose step was accepted, as stored."""
    versions = store.versions(sid)
    if not versions:
        return []
    steps = [st["version"] for st in store.steps(sid) if st["state"] == "accepted" and st["version"]]
    return list(dict.fromkeys([versions[0]["id"], *steps]))


def best_result(store: Store, sid: str) -> Result | None:
    """The session's one best (fastest_trusted); None when the check refused the original: what was
    timed beside its test is not trusted."""
    versions = store.versions(sid)
    if not versions:  # a session that stopped before its kernel was stored
        return None
    if refused_why(store, sid):
        return None
    from ..kernel.spec import spec_from_plain  # here: listing sessions needs no spec parser

    original = versions[0]
    base = spec_from_plain(original["spec_json"])
    ref = config_key(list(base.tune_params), base.baseline_params())
    data = SessionStore(store, sid)
    return fastest_trusted(data.by_time, accepted_versions(store, sid), original["id"], ref)


def session_summary(store: Store, sid: str) -> dict[str, Any]:
    s = store.session(sid)
    if s is None:
        raise UserError(f"no session {sid} in the store")
    best = best_result(store, sid)
    plan = store.steps(sid)
    if plan:  # strategies with a plan: its steps; otherwise the gates that were decided
        steps = [
            {"id": p["id"], "title": p["title"], "state": p["state"], "reason": p["reason"], "version": p["version"]}
            for p in plan
        ]
    else:
        steps = [
            {"title": g.title, "state": STEP_STATE.get(str((g.decision or {}).get("choice")), "proposed")}
            for g in store.gates(sid)
        ]
    return {
        "session": s["id"],
        "kernel": s["kernel_path"],
        "state": s["state"],
        "backend": s["backend"],
        "simulated": bool(s["simulated"]),
        "gpu": s["gpu"],
        "strategy": s["strategy"],
        "results": store.count_results(sid),
        "baseline_ms": s["baseline_ms"],
        "best": None
        if best is None
        else {
            "time_ms": best.time_ms,
            "params": dict(best.params),
            "kernel_version": best.version,
            "verified": verdict_text(
                best,
                bool(s["simulated"]),
                best.version == store.versions(sid)[0]["id"] and best.verified is None,
                vacuous_why(SessionStore(store, sid)),
            ),
        },
        "speedup": (s["baseline_ms"] / best.time_ms) if best and best.time_ms and s["baseline_ms"] else None,
        "steps": steps,
        "note": s["note"] or None,
        "error": s["error"] or None,
        "checks": _checks(store, sid),
        "check": check_summary(SessionStore(store, sid)),
        "unverified": unverified_reason(store, sid),
        "expected": expected_from(store, sid),
        **_distance(store, s, best),
    }


def _distance(store: Store, s: dict[str, Any], best: Result | None) -> dict[str, Any]:
    """The device's facts, the baseline's and the best's distance to the GPU's limit, the profiles."""
    from ..kernel.spec import spec_from_plain  # here: listing sessions needs no spec parser
    from .limits import Work, limits, stored_facts, work_of  # here: as spec_from_plain
    from .profiles import session_profiles  # here: as spec_from_plain

    facts = stored_facts(s)
    versions = {v["id"]: v for v in store.versions(s["id"])}
    works = {}
    for vid, v in versions.items():
        try:
            works[vid] = work_of(spec_from_plain(v["spec_json"]))
        except UserError as e:  # a tampered stored spec: the session's error says so
            works[vid] = Work(error=str(e)[:200])
    first = next(iter(versions), None)
    out: dict[str, Any] = {
        "device": facts,
        "baseline_limits": limits(works[first], s["baseline_ms"], facts) if first else None,
        "best_limits": limits(works[best.version], best.time_ms, facts) if best and best.version in works else None,
        "profiles": [
            {"version": p["version"], "key": p["key"], "state": p["state"], **p["summary"]}
            for p in session_profiles(SessionStore(store, s["id"]))
        ],
    }
    return out


def _checks(store: Store, sid: str) -> dict[str, Any]:
    """Results checked at other sizes: how many passed, and why the others did not."""
    rows = store.checks(sid)
    return {
        "passed": sum(1 for c in rows if c.ok),
        "failed": [f"{c.version} {c.key}: {c.reason}" for c in rows if c.ok is False],
        "not_checked": [f"{c.version} {c.key}: {c.reason}" for c in rows if c.ok is None],
    }


def session_row(s: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": s["id"],
        "kernel": s["kernel_path"],
        "created": s["created"],
        "updated": s["updated"],
        "state": s["state"],
        "backend": s["backend"],
        "simulated": bool(s["simulated"]),
        "gpu": s["gpu"],
        "strategy": s["strategy"],
        "best_time_ms": s["best_ms"],
        "baseline_ms": s["baseline_ms"],
    }
