"""The one-prompt strategy: one LLM call returns the rewritten kernel and its tunable parameters;
then the same gates as every generated kernel (fixed parameters, review, compile, verify, tune,
accept). In manual mode the user writes that one rewrite."""

from __future__ import annotations

from ...llm.prompts import rewrite_messages, template_text
from ...llm.schemas import KernelRewrite
from ..asking import llm_ask
from ..kernel_step import prompt_context, run_rewrite
from ..manual import is_manual, manual_rewrite, stored_reply
from .autonomous import start, steps_summary

NAME = "one-prompt"
DESCRIPTION = "one LLM call rewrites the whole kernel; then verify, tune and accept"
STEP = "one-prompt"
TITLE = "Optimize the kernel in one rewrite"


def one_prompt(engine):
    manual = is_manual(engine)
    yield from start(engine, "write the rewrite yourself" if manual else "ask the LLM for one optimized rewrite")
    if not any(s["id"] == STEP for s in engine.store.steps(engine.sid)):
        engine.set_step(STEP, title=TITLE, description="one prompt, one rewrite", state="approved")
    if manual:
        rewrite = stored_reply(engine, "one-prompt", KernelRewrite) or manual_rewrite(engine)
    else:
        values = {**prompt_context(engine), "step_params": {}, "step": TITLE, "previous_steps": steps_summary(engine)}
        messages = rewrite_messages(template_text("one_prompt"), "prompt template 'one_prompt'", **values)
        rewrite = yield from llm_ask(engine, "one-prompt", "one_prompt", KernelRewrite, messages=messages)
    if rewrite is None:
        engine.set_step(STEP, state="skipped", reason="no kernel")
        return
    yield from run_rewrite(engine, STEP, TITLE, rewrite)


one_prompt.NAME, one_prompt.DESCRIPTION = NAME, DESCRIPTION
