"""Asking the LLM from inside a strategy: every answer is stored under a key and replayed on
resume; a failed call or an invalid reply becomes a gate (retry, fix it by hand, skip, stop)."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, cast

from ..llm.errors import LlmError, LlmUnavailable
from ..llm.examples import example_for
from ..llm.prompts import messages_for
from ..llm.structured import StructuredReplyError, ask_structured, parse_reply
from .gates import LLM_CHOICES, Decision, Gate, LlmFailedGate, LlmReplyGate, gate_from  # noqa: F401 - LLM_CHOICES: older imports
from .manual import M, stored_reply


def ask(
    engine: Any,
    key: str,
    template: str,
    model_cls: type[M],
    without_llm: Callable[[], M | None] | None = None,
    **kw: Any,
) -> Generator[Gate, Decision, M | None]:
    """The one way a strategy asks for what an LLM writes (StrategyContext.ask): a stored answer is
    used as it was; in manual mode with `without_llm`, nothing is called and `without_llm()` goes
    to the strategy's next gate, where the user writes or edits it; otherwise llm_ask (in manual
    mode its gate is where the user writes the answer by hand)."""
    if engine.make_llm is None and without_llm is not None:
        stored = stored_reply(engine, key, model_cls)
        return stored if stored is not None else without_llm()
    return (yield from llm_ask(engine, key, template, model_cls, **kw))


def llm_ask(
    engine: Any,
    key: str,
    template: str,
    model_cls: type[M],
    normalize: Callable[[Any], Any] | None = None,
    messages: list[dict[str, Any]] | None = None,
    check: Callable[[M], list[str]] | None = None,
    **values: Any,
) -> Generator[Gate, Decision, M | None]:
    """Generator: `value = yield from llm_ask(...)`; the value is a `model_cls` instance or None (skipped).
    `messages` replaces the ones rendered from `template` (which then only names the call's purpose);
    `check(value)` lists problems that make a reply invalid beyond its shape.
    On resume, what the user decided is kept (an answer written or the call skipped is the stored
    result); a failure that was the LLM's is asked of the LLM again (_open_gate)."""
    stored = engine.data.llm_result(key)
    if stored is not None:
        return None if stored["value"] is None else model_cls.model_validate(stored["value"])
    attempt, gate = _open_gate(engine, key)
    example = example_for(model_cls)
    while True:
        if gate is None:
            attempt += 1
            problem, text, problems = None, "", []
            try:
                client = engine.llm_client(key)
                engine.llm_cancel.clear()
                engine.emit("llm_start", keep=False, key=key, purpose=template)
                result = ask_structured(
                    client,
                    template,
                    messages or messages_for(template, **values),
                    model_cls,
                    normalize=normalize,
                    check=check,
                    stream_to=lambda d: engine.emit("llm_delta", keep=False, key=key, text=d),
                )
                engine.data.put_llm_result(key, result.value.model_dump(), result.text, by="llm")
                engine.emit("llm_done", key=key, repairs=result.repairs)
                return cast(M, result.value)  # ask_structured returns a model_cls instance
            except StructuredReplyError as e:
                problem, text, problems = "reply", e.text, e.problems
                title = f"The LLM's reply for {template} is not valid: {'; '.join(e.problems)[:300]}"
            except (LlmError, LlmUnavailable) as e:  # the user decides what next
                problem, problems = "call", [str(e)]
                title = f"The LLM call for {template} failed: {e}"
            cls = LlmFailedGate if problem == "call" else LlmReplyGate
            gate = cls(
                key=f"llm:{key}:{attempt}",
                title=title,
                call=key,
                template=template,
                text=text,
                problems=problems,
                example=example,
            )
        decision = yield gate
        gate = None
        if decision.choice == "skip":
            engine.data.put_llm_result(key, None, "", by="user")
            return None
        if decision.choice == "edit":
            text = str(decision.value or "")
            try:
                value = parse_reply(text, model_cls, normalize, check)
            except StructuredReplyError as e:
                attempt += 1  # the user's text and its problems come back to the user, not to the LLM
                gate = LlmReplyGate(
                    key=f"llm:{key}:{attempt}",
                    title=f"Your answer for {template} is not valid: {'; '.join(e.problems)[:300]}",
                    call=key,
                    template=template,
                    text=text,
                    problems=e.problems,
                    example=example,
                    by_user=True,
                )
                continue
            engine.data.put_llm_result(key, value.model_dump(), text, by="user")
            return cast(M, value)


def _open_gate(engine: Any, key: str) -> tuple[int, Gate | None]:
    """The number of this call's latest gate, and that gate when it holds the user's own answer, which
    did not parse: it comes back to the user as it was. A failure of the LLM's (a reply that failed
    its format, a transport error, a timeout), left open or stopped at, is no decision of the user's:
    the resume asks the LLM again (the endpoint may answer well now; the failed reply stays in the
    stored calls)."""
    prefix = f"llm:{key}:"
    latest = None
    for g in engine.data.gates():
        n = g.key[len(prefix) :]
        if g.key.startswith(prefix) and n.isdigit() and (latest is None or int(n) > latest[0]):
            latest = (int(n), g)
    if latest is None:
        return 0, None
    n, g = latest
    if g.body.get("by_user") and (g.state == "pending" or (g.decision or {}).get("choice") == "stop"):
        return n, gate_from(g.kind, g.key, g.title, dict(g.body))
    return n, None
