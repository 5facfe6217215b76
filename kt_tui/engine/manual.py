"""Manual mode: no LLM (`--llm none`, or no endpoint configured). The strategies ask the user for
what the LLM would have written: the plan, and each step's kernel, which starts as the current
best kernel for the user to edit. Verification, tuning and acceptance are the same."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from ..llm.schemas import KernelRewrite

M = TypeVar("M", bound=BaseModel)

CONNECT = (
    "To connect an OpenAI-compatible endpoint: --base-url URL --model NAME, "
    "or set OPENAI_BASE_URL and KT_TUI_MODEL (and OPENAI_API_KEY if it needs a key)."
)
PLAN_NOTE = (
    "Manual mode (no LLM): write the plan yourself, one step per numbered line; an empty plan "
    "ends the session. " + CONNECT
)
KERNEL_NOTE = (
    "Manual mode (no LLM): the kernel shown is the current best one. Edit it for this step, then "
    "approve it to verify and tune it. " + CONNECT
)
NO_VERDICT = "no LLM: the step was not evaluated"


def is_manual(engine: Any) -> bool:
    return engine.make_llm is None


def stored_reply(engine: Any, key: str, model_cls: type[M]) -> M | None:
    """What an LLM answered for `key` when the session had one: on resume without an LLM it is shown
    and used again as it was (a replayed decision then means what it meant), never replaced."""
    stored = engine.data.llm_result(key)
    return None if stored is None or stored["value"] is None else model_cls.model_validate(stored["value"])


def manual_rewrite(engine: Any, suggested: dict[str, Any] | None = None) -> KernelRewrite:
    """The current best kernel as the step's starting point; the step's suggested parameters are
    named in the note (run_rewrite gets them too, for the names the user's code comes to use)."""
    source, spec = engine.version(engine.current_best())
    note = KERNEL_NOTE + "".join(f"\nThis step suggests {k} = {v}." for k, v in (suggested or {}).items())
    return KernelRewrite(
        kernel_code=source, tune_params=dict(spec.tune_params), restrictions=list(spec.restrictions), explanation=note
    )
