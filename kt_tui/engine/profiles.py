"""Nsight Compute profiles in a session: the baseline's and each new best's, made once per result
(gpu/profile.py on a GPU, the recording's header in sim), stored (the profiles table), read back
checked (the database is untrusted), said in one line, and the compact performance block every
prompt carries and the plan gate shows (device facts, the baseline's and the best's times and % of
peak, their profiles)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..gpu.profile import SPLIT
from ..gpu.simcache import finalize_cache, read_header
from ..kernel.spec import Spec
from .limits import facts_text, limits, limits_text, stored_facts, work_of

if TYPE_CHECKING:
    from ..records import Result

BLOCK_MAX = 1500  # characters of the performance block
QUIET = ("absent", "denied")  # said once in a session; no profile is tried after them
_NUMBERS = (
    "sm_pct",
    "dram_pct",
    "memory_pct",
    "l2_pct",
    "occupancy_achieved",
    "occupancy_theoretical",
    "cycles_per_issue",
    "registers_per_thread",
    "dram_bytes_per_s",
    "seconds",
    "time_ms",
    "passes",
    "targets",
)


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def clean_profile(value: Any) -> dict[str, Any]:
    """A stored or recorded profile summary with only its known fields, bounded."""
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {}
    for k in _NUMBERS:
        if _finite(value.get(k)):
            out[k] = value[k]
    stalls = value.get("stalls")
    if isinstance(stalls, list):
        out["stalls"] = [
            [str(s[0])[:40], float(s[1])]
            for s in stalls[:3]
            if isinstance(s, list) and len(s) == 2 and isinstance(s[1], (int, float)) and math.isfinite(s[1])
        ]
    rules = value.get("rules")
    if isinstance(rules, list):
        out["rules"] = [
            {
                k: (str(r[k])[:500] if k != "speedup_pct" else r[k])
                for k in ("rule", "type", "text", "speedup_pct")
                if k in r
            }
            for r in rules[:4]
            if isinstance(r, dict) and isinstance(r.get("text"), str)
        ]
    split = value.get("split")
    if isinstance(split, dict):
        out["split"] = {k: split[k] for k in SPLIT if _finite(split.get(k))}
    for k in ("reason", "kernel"):
        if isinstance(value.get(k), str):
            out[k] = "".join(c for c in value[k][:400] if c.isprintable())
    return out


def profile_line(p: dict[str, Any]) -> str:
    """'SM 41 %, DRAM 82 % of peak; occupancy 76 % of 100 % theoretical; stalls (cycles per
    instruction): long scoreboard 57.9, wait 3.8, short scoreboard 3.3'."""
    parts = []
    if "sm_pct" in p or "dram_pct" in p:
        parts.append(f"SM {p.get('sm_pct', 0):.0f} %, DRAM {p.get('dram_pct', 0):.0f} % of peak")
    if "occupancy_achieved" in p:
        parts.append(
            f"occupancy {p['occupancy_achieved']:.0f} % of {p.get('occupancy_theoretical', 100):.0f} % theoretical"
        )
    if p.get("stalls"):
        parts.append("stalls (cycles per instruction): " + ", ".join(f"{n} {v:.1f}" for n, v in p["stalls"]))
    return "; ".join(parts) or "no metrics"


def advice(p: dict[str, Any], n: int = 2, width: int = 240) -> list[str]:
    """ncu's own rule advice, the most promising first, each cut to `width` characters."""
    out = []
    for r in (p.get("rules") or [])[:n]:
        gain = f" (est. {r['speedup_pct']:.0f} %)" if isinstance(r.get("speedup_pct"), (int, float)) else ""
        text = r.get("text", "")
        out.append(f"ncu {r.get('rule', '')}{gain}: " + (text if len(text) <= width else text[: width - 3] + "..."))
    return out


def session_profiles(data: Any) -> list[dict[str, Any]]:
    """The session's profile rows, summaries checked: version, key, state, summary."""
    return [
        {"version": p["version"], "key": p["key"], "state": p["state"], "summary": clean_profile(p["summary"])}
        for p in data.profiles()
    ]


def profile_of(data: Any, vid: str, key: str) -> dict[str, Any] | None:
    return next((p for p in session_profiles(data) if p["version"] == vid and p["key"] == key), None)


def recorded_profile(path: Any, key: str) -> dict[str, Any]:
    """The profile a real run stamped into a recorded cache for this configuration ({} when none)."""
    try:
        found = (read_header(path).get("kt_tui", {}).get("profiles") or {}).get(key)
    except (ValueError, KeyError, OSError, AttributeError):
        return {}
    return clean_profile(found)


def stamp_profile(cachefile: str | None, key: str, summary: dict[str, Any]) -> None:
    """A profile into the cache's header, beside the others: a replay of the cache shows it."""
    if not cachefile:
        return
    try:
        known = read_header(cachefile).get("kt_tui", {}).get("profiles") or {}
        finalize_cache(cachefile, {"profiles": {**known, key: summary}})
    except (ValueError, OSError, AttributeError):
        pass  # the cache is kernel_tuner's: a replay goes without the profile


def _result_line(
    what: str, r: Result | None, spec: Spec | None, facts: dict[str, Any] | None, base: float | None
) -> str:
    if r is None or r.time_ms is None or spec is None:
        return f"{what}: not measured yet"
    speed = f", {base / r.time_ms:.2f}x the baseline" if base and what != "baseline" else ""
    lim = limits(work_of(spec), r.time_ms, facts)
    return f"{what} {dict(r.params)}: {r.time_ms:.4f} ms{speed}; " + limits_text(lim)


def performance_block(
    gpu: str,
    simulated: bool,
    facts: dict[str, Any] | None,
    baseline: tuple[Result | None, Spec | None],
    best: tuple[Result | None, Spec | None],
    profiles: list[dict[str, Any]],
) -> str:
    """The compact block (at most BLOCK_MAX characters) a prompt carries and the plan gate shows."""
    base_r = baseline[0]
    base_ms = base_r.time_ms if base_r else None
    lines = [facts_text(facts, gpu, simulated), _result_line("baseline", *baseline, facts, base_ms)]
    best_r = best[0]
    if best_r is not None and base_r is not None and (best_r.version, best_r.key) != (base_r.version, base_r.key):
        lines.append(_result_line("best so far", *best, facts, base_ms))
    for what, r in (("baseline", base_r), ("best", best_r)):
        p = next((x for x in profiles if r is not None and (x["version"], x["key"]) == (r.version, r.key)), None)
        if p is None or not p["summary"] or p["state"] not in ("done", "recorded"):
            continue
        if (
            what == "best"
            and base_r is not None
            and r is not None
            and (r.version, r.key) == (base_r.version, base_r.key)
        ):
            continue
        lines.append(f"Nsight Compute, {what}: {profile_line(p['summary'])}")
        lines += ["  " + a for a in advice(p["summary"], 1, 300)]
    said = next((p["summary"].get("reason") for p in profiles if p["state"] in QUIET), None)
    if said:
        lines.append(f"no profiles: {said[:200]}")
    text = "\n".join(lines)
    return text if len(text) <= BLOCK_MAX else text[: BLOCK_MAX - 4] + " ..."


EDITED = "performance:edited"  # the block as the user edited it at a plan gate: the prompts carry that


def engine_block(engine: Any) -> str:
    """The block for the engine's session now, or the user's edit of it."""
    kept = engine.kept(EDITED)
    if kept is not None and kept[1].strip():
        return str(kept[1])[:BLOCK_MAX]
    s = engine.data.session() or {}
    base = engine.known(engine.original).get(engine.reference_key())
    best_vid = engine.current_best()
    return performance_block(
        s.get("gpu") or engine.choice.gpu,
        engine.choice.simulated,
        stored_facts(s),
        (base, engine.version(engine.original)[1]),
        (engine.best_of(best_vid), engine.version(best_vid)[1]),
        session_profiles(engine.data),
    )


def result_lines(engine: Any, what: str, vid: str, r: Result | None) -> list[str]:
    """A result's distance to the limit and its profile, a line or three (the kernel and accept gates)."""
    if r is None or r.time_ms is None:
        return []
    facts = stored_facts(engine.data.session() or {})
    lines = [f"{what}: {r.time_ms:.4f} ms, " + limits_text(limits(work_of(engine.version(vid)[1]), r.time_ms, facts))]
    p = profile_of(engine.data, vid, r.key)
    if p is not None and p["state"] in ("done", "recorded"):
        lines += [f"{what}, Nsight Compute: {profile_line(p['summary'])}", *advice(p["summary"], 1, 300)]
    return lines


def profile_after_tune(engine: Any, vid: str) -> None:
    """After a tune run: the original's baseline configuration and the run's best when it is a new
    best (of the session, or a candidate beating it), each profiled once, both in one ncu process
    (one profile where they are the same configuration). Never every configuration."""
    if engine.choice.unmeasured or engine.stop_requested.is_set():
        return
    targets = []
    if vid == engine.original:
        base = engine.known(vid).get(engine.reference_key())
        if base is not None and base.ok:
            targets.append(base)
    best = engine.best_of(vid)
    if best is not None and best.time_ms is not None and (engine.best_ms is None or best.time_ms <= engine.best_ms):
        targets.append(best)
    stored = session_profiles(engine.data)
    if any(p["state"] in QUIET for p in stored):
        return
    done = {(p["version"], p["key"]) for p in stored}
    todo = list({r.key: r for r in targets if (vid, r.key) not in done}.values())
    if not todo:
        return
    if engine.choice.simulated:
        for r in todo:
            _recorded(engine, vid, r)
        return
    from ..gpu.profile import TIMEOUT_S, Target, profile_all  # here: only a session on a GPU profiles

    source, spec = engine.version(vid)
    backend, runs = engine.choice.backend, [(spec, source, dict(r.params), None) for r in todo]
    reports = profile_all(
        [Target(source, spec, dict(r.params)) for r in todo],
        backend,
        binaries=lambda: engine.gpu.binaries(runs, backend, TIMEOUT_S),
    )
    for r, report in zip(todo, reports):
        _store(engine, vid, spec, r, report)
        if report.state in QUIET:
            return  # said once: the same for every target


def _recorded(engine: Any, vid: str, r: Result) -> None:
    cache = engine.sim_cache(vid)
    summary = recorded_profile(cache, r.key) if cache else {}
    if summary:
        engine.data.put_profile(vid, r.key, "recorded", summary)
        engine.emit("profile", version=vid, key=r.key, state="recorded", line=profile_line(summary))


def _store(engine: Any, vid: str, spec: Spec, r: Result, report: Any) -> None:
    """A target's profile into the profiles table, said, and stamped into the version's cache."""
    summary = clean_profile({**report.summary, "reason": report.reason, "time_ms": r.time_ms})
    summary["seconds"] = round(report.seconds, 2)
    engine.data.put_profile(vid, r.key, report.state, summary)
    if report.state == "done":
        engine.emit(
            "profile", version=vid, key=r.key, state="done", line=profile_line(summary), seconds=summary["seconds"]
        )
        stamp_profile(engine.cachefile(vid, spec), r.key, summary)
    elif report.state in QUIET:
        engine.emit("note", text=f"no Nsight Compute profiles in this session: {report.reason}")
    else:
        label = f"{(engine.data.version(vid) or {}).get('label') or vid} {dict(r.params)}"
        engine.emit("note", text=f"no profile of {label}: {report.reason}")
