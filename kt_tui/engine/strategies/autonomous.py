"""The autonomous strategy: plan, then for each step validate, (break down), rewrite the kernel,
fix its tunable parameters, review, compile, verify, tune and accept or reject; replan when the
steps run out. Every proposal is a gate; every LLM answer is stored and replayed on resume."""

from __future__ import annotations

from collections.abc import Generator

from pydantic import Field

from ...llm.schemas import Breakdown, KernelRewrite, Plan, StepVerdict
from ...words import counted
from ..context import Gates, StrategyContext
from ..gates import Decision, Gate, PlanGate, StepGate
from ..manual import NO_VERDICT, PLAN_NOTE, manual_rewrite
from ..plan import plan_text, with_performance
from ..profiles import EDITED
from .common import AcceptOptions, declare, nothing, skipped_why, start, steps_summary, verdict_body

NAME = "autonomous"


class Options(AcceptOptions):
    """[strategy.autonomous] in config.toml."""

    with_replanning: bool = Field(True, description="ask for a new plan when the steps run out")
    max_replanning: int = Field(1, ge=0, description="new plans at most")
    breakdown_steps: bool = Field(False, description="let the LLM break a step into smaller ones")
    max_breakdowns: int = Field(1, ge=0, description="levels of breakdown")


def autonomous(engine: StrategyContext) -> Gates:
    opts = engine.options
    manual = engine.manual
    yield from start(engine, "write a plan" if manual else "ask the LLM for a plan")
    ctx = engine.prompt_context  # the current best kernel and its numbers, for the prompts

    plan = yield from engine.ask("plan", "plan", Plan, without_llm=nothing, **ctx())
    steps = yield from _review_plan(engine, "plan", plan, manual)
    replans, done = 0, []
    while True:
        if not steps:
            if not opts.get("with_replanning", True) or replans >= opts.get("max_replanning", 1):
                return
            replans += 1
            plan = yield from engine.ask(
                f"replan:{replans}", "replan", Plan, without_llm=nothing, previous_steps=steps_summary(engine), **ctx()
            )
            steps = yield from _review_plan(engine, f"plan:{replans}", plan, manual)
            if not steps:
                return
        step_id, title, text = steps.pop(0)
        done.append(step_id)
        verdict = yield from engine.ask(
            f"validate:{step_id}", "validate_step", StepVerdict, without_llm=nothing, step=f"{title}\n{text}", **ctx()
        )
        gate = StepGate(
            key=f"step:{step_id}",
            title=f"Step {step_id}: {title}",
            step=step_id,
            description=text,
            verdict=verdict_body(verdict),
            note=NO_VERDICT if manual and verdict is None else None,
        )
        decision = yield gate
        if decision.choice == "skip":
            why = skipped_why(decision, f"not a kernel change: {verdict.reason if verdict else ''}")
            engine.set_step(step_id, state="skipped", reason=why)
            continue
        if decision.choice == "edit" and decision.value:
            title, text = gate.parse_edit(decision.value)
            edited = f"{gate.edited_parts(decision.value)} edited by the user"
            engine.set_step(step_id, title=title, description=text, state="edited", reason=edited)
        else:
            engine.set_step(step_id, state="approved")
        depth = step_id.count(".")
        if opts.get("breakdown_steps") and depth < opts.get("max_breakdowns", 1):
            parts = yield from engine.ask(
                f"breakdown:{step_id}", "breakdown", Breakdown, without_llm=nothing, step=f"{title}\n{text}", **ctx()
            )
            if parts and len(parts.steps) > 1:
                subs = [(f"{step_id}.{i + 1}", p.title, p.description) for i, p in enumerate(parts.steps)]
                for sid_, t, d in subs:
                    engine.set_step(sid_, title=t, description=d, state="proposed", parent=step_id)
                engine.set_step(step_id, state="skipped", reason=f"broken down into {counted(len(subs), 'step')}")
                steps[:0] = subs
                continue
        rewrite = yield from engine.ask(
            f"execute:{step_id}",
            "execute_step",
            KernelRewrite,
            without_llm=lambda: manual_rewrite(engine),
            step=f"{title}\n{text}",
            **ctx(),
        )
        if rewrite is None:
            engine.set_step(step_id, state="skipped", reason="no kernel for this step")
            continue
        yield from engine.run_rewrite(step_id, title, rewrite)


def _review_plan(
    engine: StrategyContext, key: str, plan: Plan | None, manual: bool = False
) -> Generator[Gate, Decision, list[tuple[str, str, str]]]:
    """The plan gate: approve it, edit it (add, delete, reorder, reword), or stop. In manual mode
    the user writes the plan at this gate, unless an LLM wrote it earlier (a resumed session)."""
    manual = manual and plan is None
    if not manual and (plan is None or not plan.steps):
        return []
    proposed = [(p.title, p.description) for p in plan.steps] if plan else []
    prefix = "" if key == "plan" else key.split(":")[1] + "-"
    title = "Write the plan (manual mode, no LLM)" if manual else f"The LLM proposes {counted(len(proposed), 'step')}"
    block = engine.prompt_context()["performance"]  # what the prompts were told: seen and edited here
    gate = PlanGate(
        key=key,
        title=title,
        text=with_performance(plan_text(proposed) if proposed else "", block),
        manual=PLAN_NOTE if manual else None,
        choices=("approve", "edit", "stop"),
    )
    decision = yield gate
    items = gate.parse_edit(decision.value) if decision.choice == "edit" else proposed
    edited = gate.edited_performance(decision.value) if decision.choice == "edit" else None
    if edited is not None:
        engine.keep(EDITED, None, edited, by=decision.by)
    out: list[tuple[str, str, str]] = []
    for i, (title, text) in enumerate(items):
        step_id = f"{prefix}{i + 1}"
        engine.set_step(
            step_id, title=title, description=text, state="edited" if decision.choice == "edit" else "proposed"
        )
        out.append((step_id, title, text))
    return out


def _split_step(text: str) -> tuple[str, str]:
    """An edited step as its gate reads it: the title line (cleaned), then the description."""
    title, description = StepGate(key="", title="").parse_edit(text)
    return title, description


declare(autonomous, NAME, "the LLM plans the steps and rewrites the kernel for each", Options)
