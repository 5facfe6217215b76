"""The autonomous strategy: plan, then for each step validate, (break down), rewrite the kernel,
fix its tunable parameters, review, compile, verify, tune and accept or reject; replan when the
steps run out. Every proposal is a gate; every LLM answer is stored and replayed on resume."""

from __future__ import annotations

from ...llm.schemas import Breakdown, KernelRewrite, Plan, StepVerdict
from ..asking import llm_ask
from ..gates import PlanGate, StepGate, SweepGate
from ..kernel_step import prompt_context, run_rewrite
from ..manual import NO_VERDICT, PLAN_NOTE, is_manual, manual_rewrite, stored_reply
from ..plan import clean_title, plan_from_text, plan_text

NAME = "autonomous"


def autonomous(engine):
    opts = engine.options
    manual = is_manual(engine)
    yield from start(engine, "write a plan" if manual else "ask the LLM for a plan")
    ctx = prompt_context  # the current best kernel and its numbers, for the prompts

    if manual:
        plan = stored_reply(engine, "plan", Plan)
    else:
        plan = yield from llm_ask(engine, "plan", "plan", Plan, **ctx(engine))
    steps = yield from _review_plan(engine, "plan", plan, manual)
    replans, done = 0, []
    while True:
        if not steps:
            if not opts.get("with_replanning", True) or replans >= opts.get("max_replanning", 1):
                return
            replans += 1
            if manual:
                plan = stored_reply(engine, f"replan:{replans}", Plan)
            else:
                plan = yield from llm_ask(
                    engine, f"replan:{replans}", "replan", Plan, previous_steps=steps_summary(engine), **ctx(engine)
                )
            steps = yield from _review_plan(engine, f"plan:{replans}", plan, manual)
            if not steps:
                return
        step_id, title, text = steps.pop(0)
        done.append(step_id)
        if manual:
            verdict = stored_reply(engine, f"validate:{step_id}", StepVerdict)
        else:
            verdict = yield from llm_ask(
                engine, f"validate:{step_id}", "validate_step", StepVerdict, step=f"{title}\n{text}", **ctx(engine)
            )
        decision = yield StepGate(
            key=f"step:{step_id}",
            title=f"Step {step_id}: {title}",
            step=step_id,
            description=text,
            verdict=verdict_body(verdict),
            note=NO_VERDICT if manual and verdict is None else None,
        )
        if decision.choice == "skip":
            why = "skipped by the user" if decision.by != "policy" else f"not a kernel change: {verdict.reason}"
            engine.set_step(step_id, state="skipped", reason=why)
            continue
        if decision.choice == "edit" and decision.value:
            title, text = _split_step(str(decision.value))
            engine.set_step(step_id, title=title, description=text, state="edited")
        else:
            engine.set_step(step_id, state="approved")
        depth = step_id.count(".")
        if opts.get("breakdown_steps") and depth < opts.get("max_breakdowns", 1) and not manual:
            parts = yield from llm_ask(
                engine, f"breakdown:{step_id}", "breakdown", Breakdown, step=f"{title}\n{text}", **ctx(engine)
            )
            if parts and len(parts.steps) > 1:
                subs = [(f"{step_id}.{i + 1}", p.title, p.description) for i, p in enumerate(parts.steps)]
                for sid_, t, d in subs:
                    engine.set_step(sid_, title=t, description=d, state="proposed", parent=step_id)
                engine.set_step(step_id, state="skipped", reason=f"broken down into {len(subs)} steps")
                steps[:0] = subs
                continue
        if manual:
            rewrite = stored_reply(engine, f"execute:{step_id}", KernelRewrite) or manual_rewrite(engine)
        else:
            rewrite = yield from llm_ask(
                engine, f"execute:{step_id}", "execute_step", KernelRewrite, step=f"{title}\n{text}", **ctx(engine)
            )
        if rewrite is None:
            engine.set_step(step_id, state="skipped", reason="no kernel for this step")
            continue
        yield from run_rewrite(engine, step_id, title, rewrite)


def start(engine, then: str):
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


def verdict_body(verdict) -> dict | None:
    return None if verdict is None else {"valid": verdict.valid, "reason": verdict.reason}


def _review_plan(engine, key, plan, manual=False):
    """The plan gate: approve it, edit it (add, delete, reorder, reword), or stop. In manual mode
    the user writes the plan at this gate, unless an LLM wrote it earlier (a resumed session)."""
    manual = manual and plan is None
    if not manual and (plan is None or not plan.steps):
        return []
    proposed = [(p.title, p.description) for p in plan.steps] if plan else []
    prefix = "" if key == "plan" else key.split(":")[1] + "-"
    title = "Write the plan (manual mode, no LLM)" if manual else f"The LLM proposes {len(proposed)} steps"
    decision = yield PlanGate(
        key=key,
        title=title,
        text=plan_text(proposed) if proposed else "",
        manual=PLAN_NOTE if manual else None,
        choices=("approve", "edit", "stop"),
    )
    items = plan_from_text(str(decision.value)) if decision.choice == "edit" else proposed
    out = []
    for i, (title, text) in enumerate(items):
        step_id = f"{prefix}{i + 1}"
        engine.set_step(
            step_id, title=title, description=text, state="edited" if decision.choice == "edit" else "proposed"
        )
        out.append((step_id, title, text))
    return out


def steps_summary(engine) -> str:
    return "\n".join(
        f"- {s['title']}: {s['state']}" + (f" ({s['reason']})" if s["reason"] else "")
        for s in engine.store.steps(engine.sid)
    )


def _split_step(text: str) -> tuple[str, str]:
    title, _, rest = text.strip().partition("\n")
    return clean_title(title), rest.strip()


autonomous.NAME, autonomous.DESCRIPTION = NAME, "the LLM plans the steps and rewrites the kernel for each"
