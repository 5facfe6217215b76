"""What several strategies share: the first gate (measure the original), a verdict as a gate shows
it, the steps so far as a prompt reads them. Strategies import these from here, never from a
sibling strategy."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ...gpu.protocol import SEARCHES
from ..context import Gates, StrategyContext
from ..gates import Decision, SweepGate


class SearchOptions(BaseModel):
    """How every strategy's tuning runs search (engine.tune reads these): a strategy's `Options`
    extends this model. Set in config.toml under [strategy.NAME], by flags, or in the app (F2)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    search: str = Field("kt", description="kt, brute_force or a kernel_tuner strategy")
    max_configs: int = Field(0, ge=0, description="configurations per run at most (0: no budget)")
    time_limit_s: float = Field(0.0, ge=0, allow_inf_nan=False, description="seconds per run at most (0: no budget)")
    seeds: bool = Field(True, description="measure the heuristic seed configurations first")
    search_options: dict[str, Any] = Field(default_factory=dict, description="passed to the search strategy")

    @field_validator("search")
    @classmethod
    def _search(cls, v: str) -> str:
        if v and v not in SEARCHES:
            raise ValueError(f"{v!r}: unknown search (known: {', '.join(SEARCHES)})")
        return v

    @field_validator("search_options")
    @classmethod
    def _options(cls, v: dict[str, Any]) -> dict[str, Any]:
        for k, x in v.items():
            if not _finite(x):
                raise ValueError(f"{k}: must be finite numbers, not {x!r}")
        return v


def _finite(v: object) -> bool:
    """No nan or inf in `v`, as a number, a number's text, or inside a list or table."""
    if isinstance(v, (list, tuple)):
        return all(map(_finite, v))
    if isinstance(v, dict):
        return all(map(_finite, v.values()))
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            return True
    return not isinstance(v, float) or math.isfinite(v)


class AcceptOptions(SearchOptions):
    """The options of a strategy whose steps end at an accept gate."""

    threshold: float = Field(
        0.02, ge=0, allow_inf_nan=False, description="accept a kernel at least this fraction faster"
    )


F = TypeVar("F", bound=Callable[..., Any])


def declare(
    strategy: F,
    name: str,
    description: str,
    options: type[BaseModel] | None = None,
    check: Callable[[dict[str, Any]], None] | None = None,
) -> F:
    """What the registry and the app read off a strategy: NAME, DESCRIPTION (the picker's line),
    Options (its pydantic options model) and an optional check(options) run before a session."""
    for attr, value in (("NAME", name), ("DESCRIPTION", description), ("Options", options), ("check", check)):
        if value is not None:
            setattr(strategy, attr, value)
    return strategy


def start(engine: StrategyContext, then: str) -> Gates:
    """Tune the original first: its best configuration is what every step must beat. The gate's key
    is the same for every strategy that asks it, so after a switch it is not asked again."""
    vid = engine.original
    _, spec = engine.version(vid)
    decision = yield SweepGate(
        key="start",
        title=f"Measure the original {spec.kernel} ({spec.space_size()} "
        f"configurations before restrictions), then {then}?",
        version=vid,
        total=spec.space_size(),
        choices=("approve", "skip", "stop"),
    )
    if decision.choice == "approve":
        engine.baseline(vid)
        engine.tune(vid, run_id="tune:original")
    else:
        engine.baseline(vid)


def skipped_why(decision: Decision, policy_why: str) -> str:
    """A skipped step's reason, by who skipped it (a replayed decision keeps its `by`): the policy's
    reason when `--auto` skipped it, or the app's autopilot, which decides as the policy does."""
    if decision.by == "policy":
        return policy_why
    if decision.by == "autopilot":
        return f"{policy_why} (autopilot)"
    return "skipped by the user"


def verdict_body(verdict: Any) -> dict[str, Any] | None:
    """An LLM's StepVerdict as the step gate shows it (None: not evaluated)."""
    return None if verdict is None else {"valid": verdict.valid, "reason": verdict.reason}


def steps_summary(engine: StrategyContext) -> str:
    """The steps so far and how each ended, one line each, for the prompts."""
    return "\n".join(
        f"- {s['title']}: {s['state']}" + (f" ({s['reason']})" if s["reason"] else "") for s in engine.steps()
    )


def nothing() -> None:
    """`without_llm` for an answer the strategy's own next gate asks the user for (a plan) or that
    manual mode goes without (a step's verdict)."""
    return None
