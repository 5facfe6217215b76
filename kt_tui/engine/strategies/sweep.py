"""The sweep strategy: the original kernel's baseline, then its tune_params searched with the
session's search and budget (which the first gate shows and lets the user edit).

Gates: "start the sweep?" before anything runs, and "continue?" after the user stopped it.
"""

from __future__ import annotations

from typing import Any

from ...kernel.spec import Spec
from ...search.space import EXACT, FEWER, SpaceError, space_sizes, unrestricted_size
from ...tomlfile import dumps, literal
from ...words import counted
from ..context import Gates, StrategyContext
from ..gates import SEARCH_KEYS, SweepGate, parse_search  # noqa: F401 - parse_search: older imports
from .common import SearchOptions, declare

NAME = "sweep"


def search_text(settings: dict[str, Any]) -> str:
    """The search settings as the TOML the user edits at the gate."""
    return dumps({k: literal(v) if isinstance(v, str) else v for k, v in ((k, settings.get(k)) for k in SEARCH_KEYS)})


def space_counts(spec: Spec) -> tuple[int, int, str]:
    """(before restrictions, after, the line the gate shows), counted without listing the space."""
    try:
        before, after, how = space_sizes(spec)
    except SpaceError:
        before = after = unrestricted_size(spec)
        return before, after, f"{counted(before, 'configuration')} before restrictions"
    # both counts always, so that the total says which it is (the same when no restriction excludes any)
    said = counted(after, "configuration") if how == EXACT else f"{how} {counted(after, 'configuration')}"
    if how == FEWER:
        said += " (no random draw met the restrictions)"
    return before, after, f"{said}, {before} before restrictions"


def sweep(engine: StrategyContext) -> Gates:
    vid = engine.original
    _, spec = engine.version(vid)
    engine.start_check()  # the check's strength, tested once and said at this gate (engine/strength.py)
    attempt, edits = 1, 0
    tuned = None  # how the last part of the sweep ended
    settings: dict[str, Any] = {k: engine.options.get(k) for k in SEARCH_KEYS}
    settings["search"] = settings["search"] or "kt"
    while True:
        done = len(engine.known(vid))
        before, total, sizes = space_counts(spec)
        title = (
            f"Tune {spec.kernel} ({sizes})?"
            if attempt == 1
            else f"Continue the sweep of {spec.kernel} ({done} of {total} measured)?"
        )
        gate = SweepGate(
            key=f"sweep:{attempt}" + (f":{edits}" if edits else ""),
            title=title,
            version=vid,
            tune_params=spec.tune_params,
            restrictions=spec.restrictions,
            total=total,
            total_before=before,
            sizes=sizes,
            done=done,
            backend=engine.choice.backend,
            gpu=engine.choice.gpu,
            # stopped now (`x`): the policy (or the autopilot) stops too; stopped before this resume:
            # going on is what resuming means, so the policy goes on
            after_stop=tuned is not None and not tuned.replayed,
            text=search_text(settings),
            **settings,
        )
        decision = yield gate
        if decision.choice == "skip":
            return
        if decision.choice == "edit":
            try:
                settings.update(gate.parse_edit(decision.value))
            except ValueError as e:  # asked again, under a new key, with the reason
                engine.emit("note", text=f"search settings not changed: {e}")
                edits += 1
                continue
        engine.baseline(vid)
        budget = {
            "max_configs": settings.get("max_configs") or None,
            "time_limit_s": settings.get("time_limit_s") or None,
        }
        tuned = engine.tune(
            vid,
            run_id=f"sweep:{attempt}",
            search=settings["search"],
            budget=budget,
            seeds=settings.get("seeds", True) is not False,
            counts_with=tuple(f"sweep:{i}" for i in range(1, attempt)),  # one budget for the whole sweep
        )
        if not tuned.failed:  # a failed run fails the session (Engine.run decides)
            engine.confirm_best(vid)  # done after the run already; stored checks make this a replay
        if tuned.state != "stopped":
            return
        attempt += 1


declare(sweep, NAME, "the original kernel's baseline, then every configuration of its spec", SearchOptions)
