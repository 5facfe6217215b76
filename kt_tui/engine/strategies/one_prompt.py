"""The one-prompt strategy: one LLM call returns the rewritten kernel and its tunable parameters;
then the same gates as every generated kernel (fixed parameters, review, compile, verify, tune,
accept). In manual mode the user writes that one rewrite."""

from __future__ import annotations

from ...llm.prompts import rewrite_messages, template_text
from ...llm.schemas import KernelRewrite
from ..context import Gates, StrategyContext
from ..manual import manual_rewrite
from .common import AcceptOptions, declare, start, steps_summary

NAME = "one-prompt"
DESCRIPTION = "one LLM call rewrites the whole kernel; then verify, tune and accept"
STEP = "one-prompt"
TITLE = "Optimize the kernel in one rewrite"


def one_prompt(engine: StrategyContext) -> Gates:
    manual = engine.manual
    yield from start(engine, "write the rewrite yourself" if manual else "ask the LLM for one optimized rewrite")
    if not any(s["id"] == STEP for s in engine.steps()):
        engine.set_step(STEP, title=TITLE, description="one prompt, one rewrite", state="approved")
    values = {**engine.prompt_context(), "step_params": {}, "step": TITLE, "previous_steps": steps_summary(engine)}
    messages = rewrite_messages(template_text("one_prompt"), "prompt template 'one_prompt'", **values)
    rewrite = yield from engine.ask(
        "one-prompt", "one_prompt", KernelRewrite, without_llm=lambda: manual_rewrite(engine), messages=messages
    )
    if rewrite is None:
        engine.set_step(STEP, state="skipped", reason="no kernel")
        return
    yield from engine.run_rewrite(STEP, TITLE, rewrite)


declare(one_prompt, NAME, DESCRIPTION, AcceptOptions)  # [strategy.one-prompt] in config.toml
