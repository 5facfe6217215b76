"""The LLM's error classes. They import nothing heavy (no openai), so the engine catches them by
type without loading the client."""

from __future__ import annotations

from ..errors import UserError

MAX_REPLY_CHARS = 256_000  # a reply longer than this is refused, streamed or not
MAX_MODEL_CHARS = 256  # a model's name (config.py MODEL_MAX bounds the setting the same; this, a client made otherwise)


class LlmError(UserError):
    """A call failed for good; str() says why in words a user can act on (never holds the key)."""


class LlmCancelled(LlmError):
    """The user cancelled the call (x in the app, Ctrl-C headless)."""


class LlmUnavailable(UserError):
    """No LLM can be called: manual mode, or the settings lack what a call needs."""


def check_model(name: str | None) -> None:
    """A model name kt-tui can send: refused before anything starts when it is too long or holds a
    character no HTTP request can carry (the name is sent in the body and shown in every message)."""
    if name is None:
        return
    if len(name) > MAX_MODEL_CHARS:
        raise LlmUnavailable(f"--model: a model name is at most {MAX_MODEL_CHARS} characters (got {len(name):,})")
    if not name.isprintable():
        raise LlmUnavailable("--model: the model name holds a control character")
