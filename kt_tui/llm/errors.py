"""The LLM's error classes. They import nothing heavy (no openai), so the engine catches them by
type without loading the client."""

from __future__ import annotations

from ..errors import UserError

MAX_REPLY_CHARS = 256_000  # a reply longer than this is refused, streamed or not


class LlmError(UserError):
    """A call failed for good; str() says why in words a user can act on (never holds the key)."""


class LlmCancelled(LlmError):
    """The user cancelled the call (x in the app, Ctrl-C headless)."""


class LlmUnavailable(UserError):
    """No LLM can be called: manual mode, or the settings lack what a call needs."""
