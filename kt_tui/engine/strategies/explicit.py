"""The explicit strategy: the steps of a steps file (`--steps FILE`, else the library shipped with
kt-tui), in order. A step whose dependencies did not end accepted is skipped; before every other
step the LLM judges whether it fits this kernel (unless the step says skip_evaluation), and the
user decides at the step's gate. Then the step's own prompt asks for the rewrite, and the kernel
goes the same way as in the autonomous strategy. Gate and answer keys carry the step's id
(`step:ID`, `validate:ID`, `kernel:ID`, ...); ids start with a letter, so they never meet the
autonomous strategy's numbered steps in the same session."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ...llm.prompts import rewrite_messages
from ...llm.schemas import KernelRewrite, StepVerdict
from ...words import counted
from ..context import Gates, StrategyContext
from ..gates import StepGate
from ..manual import NO_VERDICT, manual_rewrite
from .common import AcceptOptions, declare, nothing, skipped_why, start, steps_summary, verdict_body
from .steps_file import Step, blocked_by, load_steps

NAME = "explicit"
DESCRIPTION = "the steps of a steps file (--steps), each judged by the LLM and decided by you"
STEPS_KEY = "explicit:steps"


class Options(AcceptOptions):
    """[strategy.explicit] in config.toml."""

    steps: str | None = Field(None, description="the steps file (None: the library shipped with kt-tui)")


def explicit(engine: StrategyContext) -> Gates:
    where, steps = _steps(engine)
    yield from start(engine, f"go through the {counted(len(steps), 'step')} of {where}")
    known = {s["id"] for s in engine.steps()}
    for step in steps:
        if step.id not in known:
            engine.set_step(step.id, title=step.title, description=step.description, state="proposed")
    outcomes: dict[str, str] = {}  # dependencies come earlier in the file, so they are known in time
    for step in steps:
        yield from _run_step(engine, step, outcomes)
        outcomes[step.id] = next((s["state"] for s in engine.steps() if s["id"] == step.id), "")


def _run_step(engine: StrategyContext, step: Step, outcomes: dict[str, str]) -> Gates:
    blocked = blocked_by(step, outcomes)
    if blocked:
        dep, state = blocked
        engine.set_step(
            step.id,
            state="skipped",
            reason=f"depends on {dep}, which was {state}" + (" (it gained nothing)" if state == "rejected" else ""),
        )
        return
    values = {
        **engine.prompt_context(),
        "step_params": step.tune_params,
        "step": f"{step.title}\n{step.description}",
        "previous_steps": steps_summary(engine),
    }
    verdict = None
    if not step.skip_evaluation:
        verdict = yield from engine.ask(
            f"validate:{step.id}", "validate_step", StepVerdict, without_llm=nothing, **values
        )
    note = (
        NO_VERDICT
        if engine.manual and verdict is None
        else "skip_evaluation: the step was not evaluated"
        if step.skip_evaluation
        else None
    )
    gate = StepGate(
        key=f"step:{step.id}",
        title=f"Step {step.id}: {step.title}",
        step=step.id,
        description=step.description,
        verdict=verdict_body(verdict),
        note=note,
        tune_params=step.tune_params,
        depends_on=step.depends_on,
        prompt=step.prompt,
    )
    decision = yield gate
    if decision.choice == "skip":
        why = skipped_why(decision, f"the LLM judged it not worth it: {verdict.reason if verdict else ''}")
        engine.set_step(step.id, state="skipped", reason=why)
        return
    prompt = step.prompt
    if decision.choice == "edit" and decision.value:  # the user rewrote the step's prompt
        _, prompt = gate.parse_edit(decision.value)
        engine.set_step(step.id, state="edited", reason="prompt edited by the user")
    else:
        engine.set_step(
            step.id,
            state="approved",
            reason="approved against the LLM's verdict" if verdict and not verdict.valid else "",
        )
    rewrite = yield from engine.ask(
        f"execute:{step.id}",
        "explicit_step",
        KernelRewrite,
        without_llm=lambda: manual_rewrite(engine, step.tune_params),
        messages=rewrite_messages(prompt, f"step {step.id!r}.prompt", **values),
    )
    if rewrite is None:
        engine.set_step(step.id, state="skipped", reason="no kernel for this step")
        return
    # the step's candidate values went to the LLM in the prompt ({step_params}); prepare() adds
    # back those the new code uses but the reply left out of its tune_params
    yield from engine.run_rewrite(step.id, step.title, rewrite, suggested=step.tune_params)


def _steps(engine: StrategyContext) -> tuple[str, list[Step]]:
    """The steps this session runs: read from the file once, then from the store (a resumed
    session keeps its steps even when the file changed or --steps was not given again)."""
    kept = engine.kept(STEPS_KEY)
    if kept is not None:
        value, text = kept
        return text, [Step(**s) for s in value]
    where, steps = load_steps(engine.options.get("steps"))
    engine.keep(STEPS_KEY, [s.to_dict() for s in steps], where, by="steps-file")
    return where, steps


def check(options: dict[str, Any]) -> None:
    """Before a session starts: a broken steps file is a clear error, not a failed session."""
    load_steps(options.get("steps"))


declare(explicit, NAME, DESCRIPTION, Options, check)
