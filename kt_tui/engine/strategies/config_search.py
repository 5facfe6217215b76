"""The config-search strategy: the kernel stays as it is; the LLM proposes which configurations to
benchmark, round after round, from the results so far (after Helion's LLM-guided search).

Each batch is checked against the space (invalid ones listed with why, duplicates and measured
ones dropped) and shown at a gate: approve, edit or skip it. Rounds end on a plateau or the
budget. On a plateau the LLM may propose search-space edits (after the Tensile LLM generator),
shown before and after with the space's size. With `hybrid`, the first batch seeds a search
strategy that goes on to the budget instead of more rounds.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

from pydantic import Field, field_validator

from ...gpu.protocol import SEARCHES
from ...kernel.spec import Spec
from ...llm.schemas import ConfigBatch, SpaceEdit
from ...records import Result
from ...search import space
from ...search.space import SpaceError, apply_edit, check_configs, config_key, render, space_size
from ...words import counted, plural
from ..context import Gates, StrategyContext
from ..gates import ConfigsGate, Decision, Gate, SpaceGate, SweepGate
from ..kernel_step import spec_text
from .common import SearchOptions, declare

NAME = "config-search"


class Options(SearchOptions):
    """[strategy.config-search] in config.toml."""

    rounds: int = Field(6, ge=1, description="rounds of LLM-proposed batches at most")
    batch_size: int = Field(8, ge=1, description="configurations the LLM proposes per round")
    plateau_rounds: int = Field(2, ge=0, description="stop after this many rounds without a 1 % gain")
    hybrid: str = Field("", description="a search strategy that goes on from the LLM's first batch")
    space_edits: bool = Field(True, description="let the LLM propose search-space edits on a plateau")

    @field_validator("hybrid")
    @classmethod
    def _hybrid(cls, v: str) -> str:
        if v and v not in SEARCHES:
            raise ValueError(f"{v!r}: unknown search (known: {', '.join(SEARCHES)})")
        return v


GAIN = 0.01  # a round that improves the best by less than this is a round without gain


def config_search(engine: StrategyContext) -> Gates:
    opts = engine.options
    vid = engine.current_best()
    _, spec = engine.version(vid)
    yield SweepGate(
        key="configs:start",
        title=f"Measure {spec.kernel} at its original configuration on "
        f"{engine.choice.label()}, then ask the LLM which configurations to try?",
        version=vid,
        total=spec.space_size(),
        choices=("approve", "stop"),
    )
    engine.baseline(vid)
    budget = int(opts.get("max_configs") or 0)
    since_gain, edits = 0, 0
    for r in range(1, int(opts.get("rounds", 6)) + 1):
        source, spec = engine.version(vid)
        values = _prompt_values(engine, vid, source, spec, r, int(opts.get("batch_size", 8)))
        batch = yield from engine.ask(
            f"configs:{r}",
            "propose_configs",
            ConfigBatch,
            check=lambda b, spec=spec: _unknown_names(spec, b.configs),
            **values,
        )
        if batch is None:
            break
        configs = yield from _review_batch(engine, vid, spec, r, batch)
        if not configs:
            continue
        before = engine.best_ms
        labels = {config_key(spec, c): f"llm round {r}" for c in configs}
        if r == 1 and opts.get("hybrid"):
            own = sum(1 for x in engine.results(vid) if x.run == "hybrid")  # tune counts its own run's
            left = max(budget - (len(engine.known(vid)) - own), 1) if budget else None
            engine.tune(
                vid,
                "hybrid",
                search=opts["hybrid"],
                labels=labels,
                seeds=configs,
                budget={"max_configs": left, "time_limit_s": opts.get("time_limit_s") or None},
            )
            return
        engine.tune(vid, f"configs:{r}", configs=configs, labels=labels)
        gained = engine.best_ms is not None and (before is None or engine.best_ms < before * (1 - GAIN))
        since_gain = 0 if gained else since_gain + 1
        if budget and len(engine.known(vid)) >= budget:
            engine.emit("note", text=f"config-search: the budget of {counted(budget, 'configuration')} is spent")
            return
        if since_gain >= int(opts.get("plateau_rounds", 2)):
            if not opts.get("space_edits", True) or edits >= 1:
                engine.emit("note", text=f"config-search: no gain in {counted(since_gain, 'round')}; stopping")
                return
            edits += 1
            reply = yield from engine.ask(f"space:{r}", "edit_space", SpaceEdit, **values)
            changed = yield from _review_space(engine, vid, spec, source, r, reply)
            if not changed:
                return
            since_gain = 0


def _review_batch(
    engine: StrategyContext, vid: str, spec: Spec, r: int, batch: ConfigBatch
) -> Generator[Gate, Decision, list[dict[str, Any]]]:
    """The batch gate: returns the configurations to measure (possibly edited), or [] when skipped."""
    known = set(engine.known(vid))
    valid, invalid = _checked(spec, batch.configs, known)
    limit = int(engine.options.get("batch_size", 8))
    extra = valid[limit:]
    valid = valid[:limit]
    invalid = list(invalid) + [(c, f"over the batch size of {limit}") for c in extra]
    attempt = 1
    while True:
        key = f"batch:{r}" + (f":{attempt}" if attempt > 1 else "")
        gate = ConfigsGate(
            key=key,
            title=f"Round {r}: benchmark {counted(len(valid), 'configuration')} the LLM proposes ({len(invalid)} dropped)?",
            round=r,
            configs=valid,
            reasoning=batch.reasoning,
            params=list(spec.tune_params),
            invalid=[{"config": c, "why": why} for c, why in invalid],
            text=_lines(valid),
        )
        decision = yield gate
        if decision.choice == "skip":
            return []
        if decision.choice == "approve":
            return valid
        try:
            edited = gate.parse_edit(decision.value)
        except ValueError as e:
            edited, invalid = valid, [({}, f"the edit is {e}")]
        else:
            valid, invalid = _checked(spec, edited, known)
        attempt += 1


def _unknown_names(spec: Spec, configs: list[Any]) -> list[str]:
    """A reply naming parameters the kernel does not have is not an answer (an echoed example, a guess)."""
    unknown = sorted({str(k) for c in configs if isinstance(c, dict) for k in c} - set(spec.tune_params))
    if not unknown:
        return []
    return [
        f"configs: unknown {plural(len(unknown), 'parameter')} {', '.join(unknown)} (the kernel's are {', '.join(spec.tune_params)})"
    ]


def _checked(
    spec: Spec, configs: list[dict[str, Any]], known: set[str]
) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], str]]]:
    valid, invalid = check_configs(spec, configs, known_keys=known)
    return [c for c, _ in valid], invalid


def _review_space(
    engine: StrategyContext, vid: str, spec: Spec, source: str, r: int, reply: SpaceEdit | None
) -> Generator[Gate, Decision, bool]:
    """The space gate: before and after, with sizes. True when the space changed."""
    if reply is None or not reply.edits:
        engine.emit("note", text="config-search: the LLM proposes no change to the space; stopping")
        return False
    new, problems = spec, []
    for change in reply.edits:
        if change.action == "add_param" and change.param not in source:
            problems.append(f"{change.param}: the kernel does not read it")
            continue
        try:
            new = apply_edit(new, space.SpaceEdit(change.action, change.param, change.values, change.default))
        except SpaceError as e:
            problems.append(str(e))
    if new.tune_params == spec.tune_params:
        engine.emit("note", text="config-search: no usable space edit (" + "; ".join(problems) + ")")
        return False
    before, after = space_size(spec), space_size(new)
    decision = yield SpaceGate(
        key=f"space:{r}",
        title=f"Change the search space ({before} -> {counted(after, 'configuration')})?",
        before=spec.tune_params,
        after=new.tune_params,
        size_before=before,
        size_after=after,
        reason=reply.reason,
        problems=problems,
    )
    if decision.choice != "approve":
        return False
    engine.update_space(vid, new)
    return True


def _prompt_values(
    engine: StrategyContext, vid: str, source: str, spec: Spec, r: int, batch_size: int
) -> dict[str, Any]:
    results = engine.results(vid)
    ok = sorted((x for x in results if engine.trusted(vid, x)), key=lambda x: x.time_ms)
    failed = [x for x in results if x not in ok]
    base = spec.baseline_params()
    anchors = [f"original: {base}"] + ([f"best: {ok[0].params} at {ok[0].time_ms:.4f} ms"] if ok else [])
    return {
        "kernel_string": source,
        "kernel_name": spec.kernel,
        "gpu": engine.choice.gpu or "unknown",
        "problem_size": spec_text(spec),
        "space": render(spec),
        "round": r,
        "batch_size": batch_size,
        "results": "\n".join(f"{x.time_ms:.4f}  {x.params}" for x in ok[:15]) or "nothing yet",
        "anchors": "\n".join(anchors),
        "failed": _failures(failed),
        "performance": engine.prompt_context()["performance"],
    }


def _failures(failed: list[Result]) -> str:
    """Failed configurations (records.Result), and the parameter values every one of them shares (a pattern)."""
    if not failed:
        return "none"
    lines = [f"{x.status}: {x.params}" for x in failed[:10]]
    shared = {k: v for k, v in failed[0].params.items() if all(x.params.get(k) == v for x in failed)}
    if len(failed) > 1 and shared:
        lines.append(f"all {len(failed)} failures have {shared}")
    return "\n".join(lines)


def _lines(configs: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(c) + "\n" for c in configs)


declare(config_search, NAME, "", Options)
