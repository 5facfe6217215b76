"""Asking the LLM from inside a strategy: every answer is stored under a key and replayed on
resume; a failed call or an invalid reply becomes a gate (retry, fix it by hand, skip, stop)."""

from __future__ import annotations

import json

from .events import Gate

LLM_CHOICES = ("retry", "edit", "skip", "stop")


def llm_ask(engine, key: str, template: str, model_cls, normalize=None, messages=None, **values):
    """Generator: `value = yield from llm_ask(...)`; the value is a `model_cls` instance or None (skipped).
    `messages` replaces the ones rendered from `template` (which then only names the call's purpose)."""
    from ..llm.prompts import messages_for
    from ..llm.structured import StructuredReplyError, ask_structured, parse_reply

    stored = engine.store.llm_result(engine.sid, key)
    if stored is not None:
        return None if stored["value"] is None else model_cls.model_validate(stored["value"])
    messages = messages or messages_for(template, **values)
    attempt = 0
    while True:
        attempt += 1
        problem, text = None, ""
        try:
            client = engine.llm_client(key)
            engine.emit("llm_start", keep=False, key=key, purpose=template)
            result = ask_structured(client, template, messages, model_cls, normalize=normalize,
                                    stream_to=lambda delta: engine.emit("llm_delta", keep=False, key=key, text=delta))
            engine.store.put_llm_result(engine.sid, key, result.value.model_dump(), result.text, by="llm")
            engine.emit("llm_done", key=key, repairs=result.repairs)
            return result.value
        except StructuredReplyError as e:
            problem, text = "reply", e.text
            title = f"The LLM's reply for {template} is not valid: {'; '.join(e.problems)[:300]}"
        except Exception as e:  # noqa: BLE001 - LlmError, LlmUnavailable: the user decides what next
            if type(e).__name__ not in ("LlmError", "LlmUnavailable"):
                raise
            problem = "call"
            title = f"The LLM call for {template} failed: {e}"
        decision = yield Gate(f"llm:{key}:{attempt}", kind="llm_failed" if problem == "call" else "llm_reply",
                              title=title, body={"key": key, "template": template, "text": text,
                                                 "schema": json.dumps(model_cls.model_json_schema())[:2000]},
                              choices=LLM_CHOICES)
        if decision.choice == "skip":
            engine.store.put_llm_result(engine.sid, key, None, "", by="user")
            return None
        if decision.choice == "edit":
            try:
                value = parse_reply(str(decision.value), model_cls, normalize)
            except StructuredReplyError:
                continue  # asked again, with a new gate
            engine.store.put_llm_result(engine.sid, key, value.model_dump(), str(decision.value), by="user")
            return value
