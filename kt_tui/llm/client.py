"""One chat call to an OpenAI-compatible endpoint, with our own retries so every attempt is recorded."""

from __future__ import annotations

import email.utils
import errno
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Callable

import openai

from ..errors import UserError

DEFAULT_BASE_URL = "https://api.openai.com/v1"
WAIT_CAP_S = 30.0
HOW_TO_CONNECT = ("pass --base-url URL (or set OPENAI_BASE_URL) and --model NAME (or set KT_TUI_MODEL), "
                  "and set OPENAI_API_KEY if the endpoint needs a key")


class LlmError(UserError):
    """A call failed for good; str() says why in words a user can act on (never holds the key)."""


class LlmUnavailable(UserError):
    """No LLM can be called: manual mode, or the settings lack what a call needs."""


@dataclass
class LlmReply:
    text: str
    model: str
    tokens_in: int | None
    tokens_out: int | None
    latency_s: float
    attempts: int


@dataclass
class _Failure:
    kind: str  # timeout | connection | status | stream | other
    detail: str  # short, for the record
    retry: bool
    status: int | None = None
    server_message: str = ""
    retry_after: float | None = None


class LlmClient:
    def __init__(self, base_url: str | None, model: str, api_key: str | None, timeout_s: float = 60,
                 max_retries: int = 3, backoff_s: float = 1.0, on_call: Callable[[dict], None] | None = None):
        """`max_retries` is the number of attempts in all (at least one)."""
        self.model = model
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.on_call = on_call
        self._key = api_key or ""
        if base_url and not base_url.startswith(("http://", "https://")):
            raise LlmUnavailable(f"--base-url must start with http:// or https:// (got {base_url!r})")
        self._client = openai.OpenAI(base_url=base_url or DEFAULT_BASE_URL, api_key=api_key or "none",
                                     timeout=timeout_s, max_retries=0)
        self.base_url = self._scrub(str(self._client.base_url).rstrip("/"))

    @classmethod
    def from_settings(cls, settings, on_call: Callable[[dict], None] | None = None) -> LlmClient:
        if getattr(settings, "llm", "auto") == "none":
            raise LlmUnavailable(f"manual mode (--llm none or KT_TUI_LLM=none): no LLM is called. "
                                 f"To connect an OpenAI-compatible endpoint, leave --llm none out, {HOW_TO_CONNECT}")
        if not getattr(settings, "model", None):
            raise LlmUnavailable(f"no model set: pass --model NAME or set KT_TUI_MODEL ({HOW_TO_CONNECT})")
        return cls(settings.base_url, settings.model, settings.api_key, on_call=on_call)

    def complete(self, purpose: str, messages: list[dict], stream_to: Callable[[str], None] | None = None,
                 temperature: float | None = None) -> LlmReply:
        attempts = max(1, self.max_retries)
        for attempt in range(1, attempts + 1):
            start = time.monotonic()
            try:
                text, model, tokens_in, tokens_out = self._once(messages, stream_to, temperature)
            except Exception as e:
                failure = _classify(e, self.timeout_s)
                self._record(purpose, messages, None, failure.detail, None, None,
                             time.monotonic() - start, attempt, stream_to is not None)
                if failure.kind == "other":
                    raise
                if not failure.retry or attempt == attempts:
                    raise LlmError(self._scrub(self._explain(failure, attempt))) from None
                time.sleep(self._wait(attempt, failure.retry_after))
                continue
            latency = time.monotonic() - start
            self._record(purpose, messages, text, None, tokens_in, tokens_out, latency, attempt, stream_to is not None)
            return LlmReply(text, model, tokens_in, tokens_out, latency, attempt)
        raise AssertionError("unreachable")

    def _once(self, messages, stream_to, temperature) -> tuple[str, str, int | None, int | None]:
        extra = {} if temperature is None else {"temperature": temperature}
        create = self._client.chat.completions.create
        if stream_to is None:
            r = create(model=self.model, messages=messages, **extra)
            text = (r.choices[0].message.content or "") if r.choices else ""
            usage = r.usage
            return (text, r.model or self.model, getattr(usage, "prompt_tokens", None),
                    getattr(usage, "completion_tokens", None))
        stream = create(model=self.model, messages=messages, stream=True,
                        stream_options={"include_usage": True}, **extra)
        parts, model, usage = [], self.model, None
        try:
            for chunk in stream:
                model = chunk.model or model
                usage = getattr(chunk, "usage", None) or usage  # some servers send it on every chunk
                for choice in chunk.choices or ():
                    delta = choice.delta.content if choice.delta else None
                    if delta:
                        parts.append(delta)
                        stream_to(delta)
        finally:
            stream.close()
        return ("".join(parts), model, getattr(usage, "prompt_tokens", None),
                getattr(usage, "completion_tokens", None))

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), WAIT_CAP_S)
        return min(self.backoff_s * 2 ** (attempt - 1), WAIT_CAP_S)

    def _explain(self, f: _Failure, attempts: int) -> str:
        where = f"LLM endpoint {self.base_url}"
        tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
        if f.kind == "timeout":
            return f"{where} timed out (no reply within {self.timeout_s:g} s) {tries}"
        if f.kind == "connection":
            return f"{where} unreachable ({f.detail}) {tries}"
        if f.kind == "stream":
            return f"{where} broke off the reply ({f.detail}) {tries}"
        said = f": {f.server_message}" if f.server_message else ""
        status = f"{f.status} {_phrase(f.status)}"
        if f.status == 401:
            return f"{where} returned {status}: check OPENAI_API_KEY"
        if f.status == 403:
            return f"{where} returned {status}: check OPENAI_API_KEY and that it may use model {self.model!r}{said}"
        if f.status == 404:
            return (f"{where} returned {status}: check --base-url (it usually ends in /v1) "
                    f"and --model ({self.model!r}){said}")
        if f.status == 429:
            return f"{where} is rate limiting (429 Too Many Requests) {tries}{said}"
        if f.retry:
            return f"{where} returned {status} {tries}{said}"
        return f"{where} returned {status}{said}"

    def _record(self, purpose, messages, reply, error, tokens_in, tokens_out, latency_s, attempt, streamed):
        if self.on_call is None:
            return
        self.on_call({
            "purpose": purpose, "model": self.model, "base_url": self.base_url,
            "messages": self._scrub(_plain(messages)), "reply": reply if reply is None else self._scrub(reply),
            "error": error if error is None else self._scrub(error), "tokens_in": tokens_in,
            "tokens_out": tokens_out, "latency_s": round(latency_s, 4), "attempt": attempt, "streamed": streamed,
        })

    def _scrub(self, value):
        """The same value with the API key masked wherever it appears (strings in dicts and lists too)."""
        if not self._key:
            return value
        if isinstance(value, str):
            return value.replace(self._key, "***")
        if isinstance(value, dict):
            return {k: self._scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub(v) for v in value]
        return value


def _plain(messages: list[dict]) -> list[dict]:
    return [dict(m) for m in messages]


def _phrase(status: int | None) -> str:
    try:
        return HTTPStatus(status).phrase
    except (ValueError, TypeError):
        return "error"


def _classify(e: Exception, timeout_s: float) -> _Failure:
    names = {c.__name__ for c in type(e).__mro__}
    if isinstance(e, openai.APITimeoutError) or "TimeoutException" in names:
        return _Failure("timeout", f"timed out after {timeout_s:g} s", True)
    if isinstance(e, openai.APIConnectionError) or "TransportError" in names:
        return _Failure("connection", _connection_reason(e), True)
    if isinstance(e, openai.APIStatusError):
        status = e.status_code
        said = _server_message(e.body)
        retry = status == 429 or status >= 500 or status in (408, 409)
        detail = f"HTTP {status} {_phrase(status)}" + (f": {said}" if said else "")
        return _Failure("status", detail, retry, status, said, _retry_after(e.response.headers))
    if isinstance(e, openai.APIResponseValidationError):
        return _Failure("status", f"unexpected response: {e.message}", False, e.status_code, e.message[:200])
    if isinstance(e, openai.APIError):  # an error event in the middle of a stream
        return _Failure("stream", e.message[:200], True)
    return _Failure("other", f"{type(e).__name__}: {e}"[:300], False)


def _connection_reason(e: BaseException) -> str:
    seen = e
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError) or getattr(seen, "errno", None) == errno.ECONNREFUSED:
            return "connection refused"
        text = str(seen).lower()
        if "refused" in text:
            return "connection refused"
        if "disconnected" in text or "without sending" in text or "connection reset" in text:
            return "the server closed the connection without a reply"
        if "name or service not known" in text or "nodename nor servname" in text or "getaddrinfo" in text:
            return "host name not found"
        seen = seen.__cause__ or seen.__context__
    cause = e.__cause__ or e.__context__
    return (str(cause) or type(cause).__name__)[:200] if cause else (str(e) or "connection error")[:200]


def _server_message(body) -> str:
    if isinstance(body, dict):
        inner = body.get("error", body)
        body = inner.get("message", inner) if isinstance(inner, dict) else inner
    return "" if body is None else str(body)[:200]


def _retry_after(headers) -> float | None:
    value = headers.get("retry-after") if headers is not None else None
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()
