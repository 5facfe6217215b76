"""One chat call to an OpenAI-compatible endpoint, with our own retries so every attempt is recorded.

Our loop, not the SDK's retries (it gets max_retries=0). Read in openai 3.54's `SyncAPIClient.request`,
the SDK's loop cannot give what every call here needs (tests/llm/test_llm_hostile.py pins each point):
- it retries only up to the response headers: a stream that a small local model drops mid-reply,
  or ends without a finish reason, comes back as an error the SDK never retries;
- its wait between attempts is a `time.sleep` (Retry-After honoured up to 120 s): a cancel (x in the
  app, Ctrl-C headless) cannot end it, and the next attempt is sent after the user cancelled;
- its timeout is httpx's per read, not a total deadline: a stream trickling one token a second
  never times out;
- its hooks (httpx event hooks, its log lines) see a request start and a response arrive, not an
  attempt that failed on a refused connection or a broken stream, so no row could say why it failed.
So each attempt gets its own row in the store (written when it starts), the whole attempt (stream
included) a total deadline and a cancel check, the wait a cancellable `Event.wait`, and the final
message names every attempt's problem. The retry rules follow the SDK's: 408, 409, 429 and 5xx are
retried; Retry-After (or retry-after-ms) sets the wait, capped at WAIT_CAP_S. Connection failures
are told apart by exception type along the cause chain, never by message text."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # checked against the library installed with openai here
    import httpx2 as httpx
else:
    try:
        import httpx2 as httpx  # the openai SDK's HTTP library from openai 3 on
    except ImportError:  # openai 1.x and 2.x use httpx
        import httpx  # openai before 3.0

from ..redact import StreamScrubber, mask_url, register_secret, register_url, scrub, scrub_value
from ..words import counted
from .errors import MAX_REPLY_CHARS, LlmCancelled, LlmError, LlmUnavailable, check_model
from .failures import Failure, classify, phrase
from .transport import Attempt, http_client
from .transport import BadReply as _BadReply

DEFAULT_BASE_URL = "https://api.openai.com/v1"
WAIT_CAP_S = 30.0
DEFAULT_MAX_TOKENS = 4096
SHORT_REPLIES = {"validate_step": 1024}  # purposes whose answer is a sentence or two: a lower token cap
POLL_S = 0.05
HOW_TO_CONNECT = (
    "pass --base-url URL (or set OPENAI_BASE_URL) and --model NAME (or set KT_TUI_MODEL), "
    "and set OPENAI_API_KEY if the endpoint needs a key"
)


@dataclass
class LlmReply:
    text: str
    model: str
    tokens_in: int | None
    tokens_out: int | None
    latency_s: float
    attempts: int


class LlmClient:
    def __init__(
        self,
        base_url: str | None,
        model: str,
        api_key: str | None,
        timeout_s: float = 120,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        on_call: Callable[[dict], object] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        cancel: threading.Event | None = None,
    ):
        """`max_retries` is the number of attempts in all (at least one); `timeout_s` is each attempt's
        total deadline, the whole stream included; `cancel`, when set, ends the call at once."""
        check_model(model)
        self.model = model
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_tokens = max_tokens
        self.on_call = on_call
        self.cancel = cancel or threading.Event()
        register_secret(api_key)
        register_url(base_url)
        if base_url and not base_url.startswith(("http://", "https://")):
            raise LlmUnavailable(f"--base-url must start with http:// or https:// (got {mask_url(base_url)!r})")
        import openai  # here, not at the top: it takes 0.3-1.5 s, and the TUI's first frame does not wait for it

        self._client = openai.OpenAI(
            base_url=base_url or DEFAULT_BASE_URL,
            api_key=api_key or "none",
            timeout=timeout_s,
            max_retries=0,
            http_client=http_client(timeout_s, base_url or DEFAULT_BASE_URL),
        )
        self.base_url = mask_url(scrub(str(self._client.base_url).rstrip("/")))

    @classmethod
    def from_settings(cls, settings, on_call: Callable[[dict], object] | None = None) -> LlmClient:
        if getattr(settings, "llm", "auto") == "none":
            raise LlmUnavailable(
                f"manual mode (--llm none or KT_TUI_LLM=none): no LLM is called. "
                f"To connect an OpenAI-compatible endpoint, leave --llm none out, {HOW_TO_CONNECT}"
            )
        if not getattr(settings, "model", None):
            raise LlmUnavailable(f"no model set: pass --model NAME or set KT_TUI_MODEL ({HOW_TO_CONNECT})")
        return cls(
            settings.base_url,
            settings.model,
            settings.api_key,
            on_call=on_call,
            timeout_s=float(getattr(settings, "llm_timeout_s", 120.0)),
            max_retries=int(getattr(settings, "llm_retries", 3)),
            max_tokens=int(getattr(settings, "llm_max_tokens", DEFAULT_MAX_TOKENS)),
        )

    def complete(
        self,
        purpose: str,
        messages: list[dict],
        stream_to: Callable[[str], None] | None = None,
        temperature: float | None = None,
    ) -> LlmReply:
        attempts = max(1, self.max_retries)
        failures: list[Failure] = []
        cap = min(self.max_tokens, SHORT_REPLIES.get(purpose.split(":")[0], self.max_tokens))
        for attempt in range(1, attempts + 1):
            start = time.monotonic()
            row = self._record(
                purpose, messages, None, None, None, None, 0.0, attempt, stream_to is not None, state="running"
            )
            shown = StreamScrubber() if stream_to is not None else None
            try:
                text, model, tokens_in, tokens_out = self._once(messages, shown, stream_to, temperature, cap)
                text, model = scrub(text), scrub(str(model))
                if stream_to is not None and shown is not None and (rest := shown.flush()):
                    stream_to(rest)
            except Exception as e:
                failure = classify(e, self.timeout_s)
                failures.append(failure)
                self._record(
                    purpose,
                    messages,
                    None,
                    failure.detail,
                    None,
                    None,
                    time.monotonic() - start,
                    attempt,
                    stream_to is not None,
                    row=row,
                    state="failed",
                )
                if failure.kind == "other":
                    raise
                if failure.kind == "cancelled":
                    raise LlmCancelled(self._scrub(self._explain(failures))) from None
                if not failure.retry or attempt == attempts:
                    raise LlmError(self._scrub(self._explain(failures))) from None
                if self.cancel.wait(self._wait(attempt, failure.retry_after)):
                    failures.append(Failure("cancelled", "cancelled", False))
                    raise LlmCancelled(self._scrub(self._explain(failures))) from None
                continue
            latency = time.monotonic() - start
            self._record(
                purpose,
                messages,
                text,
                None,
                tokens_in,
                tokens_out,
                latency,
                attempt,
                stream_to is not None,
                row=row,
                state="done",
            )
            return LlmReply(text, model, tokens_in, tokens_out, latency, attempt)
        raise AssertionError("unreachable")

    def _once(self, messages, shown, stream_to, temperature, max_tokens) -> tuple[str, str, int | None, int | None]:
        """One attempt. The HTTP exchange runs in a daemon thread that hands over what arrives; this
        thread enforces the total deadline and the cancel flag, so neither waits on a blocked read."""
        extra = {} if temperature is None else {"temperature": temperature}
        box: queue.Queue = queue.Queue()
        attempt = Attempt()
        args = dict(model=self.model, messages=messages, max_tokens=max_tokens, **extra)
        threading.Thread(
            target=_exchange, args=(self._client, args, stream_to is not None, box, attempt), daemon=True
        ).start()
        deadline = time.monotonic() + self.timeout_s
        size = 0
        try:
            while True:
                if self.cancel.is_set():
                    raise _BadReply("cancelled", "cancelled by the user")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise _BadReply("timeout", f"timed out: no complete reply within {self.timeout_s:g} s")
                try:
                    kind, value = box.get(timeout=min(POLL_S, left))
                except queue.Empty:
                    continue
                if kind == "delta":
                    size += len(value)
                    if size > MAX_REPLY_CHARS:
                        raise _BadReply(
                            "reply",
                            f"the reply is over the {MAX_REPLY_CHARS // 1000} KB limit "
                            "(refused; lower max_tokens or ask for less)",
                        )
                    if stream_to is not None and (piece := shown.feed(value)):
                        stream_to(piece)
                elif kind == "error":
                    raise value
                else:
                    attempt.quit.set()
                    return value
        finally:
            if not attempt.quit.is_set():  # abandoned: its connection is closed, its reader stops
                attempt.abandon()

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), WAIT_CAP_S)
        return min(self.backoff_s * 2 ** (attempt - 1), WAIT_CAP_S)

    def _explain(self, failures: list[Failure]) -> str:
        """The last failure in words, then every attempt's problem when there was more than one."""
        text = self._explain_one(failures[-1], len(failures))
        if len({f.detail for f in failures}) > 1:
            text += " [" + "; ".join(f"attempt {i}: {f.detail}" for i, f in enumerate(failures, 1)) + "]"
        return text

    def _explain_one(self, f: Failure, attempts: int) -> str:
        where = f"LLM endpoint {self.base_url}"
        tries = f"after {counted(attempts, 'attempt')}"
        if f.kind == "cancelled":
            return "the LLM call was cancelled"
        if f.kind == "timeout":
            return f"{where} timed out (no complete reply within {self.timeout_s:g} s) {tries}"
        if f.kind == "connection":
            return f"{where} unreachable ({f.detail}) {tries}"
        if f.kind == "stream":
            return f"{where} broke off the reply ({f.detail}) {tries}"
        if f.kind in ("reply", "refused"):
            return f"{where}: {f.detail} ({tries})"
        said = f": {f.server_message}" if f.server_message else ""
        status = f"{f.status} {phrase(f.status)}"
        if f.status == 401:
            return f"{where} returned {status}: check OPENAI_API_KEY"
        if f.status == 403:
            return f"{where} returned {status}: check OPENAI_API_KEY and that it may use model {self.model!r}{said}"
        if f.status == 404:
            return (
                f"{where} returned {status}: check --base-url (it usually ends in /v1) "
                f"and --model ({self.model!r}){said}"
            )
        if f.status == 429:
            return f"{where} is rate limiting (429 Too Many Requests) {tries}{said}"
        if f.retry:
            return f"{where} returned {status} {tries}{said}"
        return f"{where} returned {status}{said}"

    def _record(
        self,
        purpose,
        messages,
        reply,
        error,
        tokens_in,
        tokens_out,
        latency_s,
        attempt,
        streamed,
        row=None,
        state="done",
    ):
        """Reports one attempt: state "running" when it starts (the answer is the row to complete),
        then "done" or "failed" with `row` set."""
        if self.on_call is None:
            return None
        return self.on_call(
            {
                "purpose": purpose,
                "model": self.model,
                "base_url": self.base_url,
                "messages": self._scrub(_plain(messages)),
                "reply": reply if reply is None else self._scrub(reply),
                "error": error if error is None else self._scrub(error),
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
                "latency_s": round(latency_s, 4),
                "attempt": attempt,
                "streamed": streamed,
                "state": state,
                "row": row,
            }
        )

    @staticmethod
    def _scrub(value):
        """The same value with the key and other credentials masked (strings in dicts and lists too)."""
        return scrub_value(value)


HTML_HINT = "the endpoint answered with an HTML page, not JSON: is --base-url the API root (…/v1)?"
TOOLS_ONLY = "the reply holds only a tool call and no text (kt-tui asks for text answers)"


def _exchange(client, args: dict, stream: bool, box: queue.Queue, attempt: Attempt) -> None:
    """Runs in a daemon thread: puts ("delta", text) for each piece, then ("done", reply) or ("error", e)."""
    attempt.bind()
    try:
        box.put(("done", _streamed(client, args, box, attempt.quit) if stream else _whole(client, args)))
    except BaseException as e:  # noqa: BLE001 - handed to the caller, which classifies it
        box.put(("error", e))


def _whole(client, args: dict):
    raw = client.chat.completions.with_raw_response.create(**args)
    body = raw.http_response.content
    if "html" in raw.http_response.headers.get("content-type", "") or body.lstrip()[:1] == b"<":
        raise _BadReply("reply", HTML_HINT)
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise _BadReply("reply", "the endpoint sent bytes that are not valid UTF-8 (refused)") from None
    except (ValueError, RecursionError):
        raise _BadReply("reply", f"the endpoint's answer is not JSON kt-tui reads (it begins {body[:60]!r})") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices:
        raise _BadReply("reply", "the reply has no choices (choices: [])")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    message = message if isinstance(message, dict) else _malformed("reply", "choices[0].message", message)
    text = message.get("content") or ""
    if not isinstance(text, str):
        _malformed("reply", "message.content", text)
    if not text and message.get("tool_calls"):
        raise _BadReply("reply", TOOLS_ONLY)
    if len(text) > MAX_REPLY_CHARS:
        raise _BadReply("reply", f"the reply is over the {MAX_REPLY_CHARS // 1000} KB limit (refused)")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    model = data.get("model") if isinstance(data.get("model"), str) else args["model"]
    return text, model, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))


def _streamed(client, args: dict, box: queue.Queue, quit_flag: threading.Event):
    import openai  # loaded by the client's constructor already (see there)

    stream = client.chat.completions.create(stream=True, stream_options={"include_usage": True}, **args)
    text, model, usage, finish, tools, choices = [], args["model"], None, None, False, False
    try:
        if "html" in stream.response.headers.get("content-type", ""):
            raise _BadReply("reply", HTML_HINT)
        for chunk in stream:
            if quit_flag.is_set():
                return None
            if chunk.choices is not None and not isinstance(chunk.choices, list):
                _malformed("stream", "choices", chunk.choices)
            model = chunk.model if isinstance(chunk.model, str) and chunk.model else model
            usage = getattr(chunk, "usage", None) or usage  # some servers send it on every chunk
            for choice in chunk.choices or ():
                if choice is None or isinstance(choice, (str, int, float, list)):
                    _malformed("stream", "a choice", choice)
                choices = True
                delta = getattr(choice, "delta", None)
                content = getattr(delta, "content", None)
                if (delta is not None and not hasattr(delta, "content")) or not isinstance(content, (str, type(None))):
                    _malformed("stream", "delta", delta if content is None else content)
                if content:
                    text.append(content)
                    box.put(("delta", content))
                tools = tools or bool(delta is not None and getattr(delta, "tool_calls", None))
                reason = getattr(choice, "finish_reason", None)
                finish = (reason if isinstance(reason, str) else None) or finish
    except (_BadReply, UnicodeDecodeError, openai.APIError, httpx.HTTPError):
        raise
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError) as e:
        raise _BadReply("stream", f"a malformed stream chunk ({type(e).__name__}: {str(e)[:80]})") from None
    finally:
        stream.close()
    if not choices:
        raise _BadReply("reply", "the reply has no choices (choices: [])")
    if not text and tools:
        raise _BadReply("reply", TOOLS_ONLY)
    if finish is None:
        raise _BadReply("stream", "the stream ended without a finish reason (the server dropped it)")
    return (
        "".join(text),
        model,
        _count(getattr(usage, "prompt_tokens", None)),
        _count(getattr(usage, "completion_tokens", None)),
    )


def _malformed(where: str, field: str, value):
    raise _BadReply(
        where,
        f"a malformed {'stream chunk' if where == 'stream' else 'reply'}: {field} is "
        f"{type(value).__name__}, not what the API sends",
    )


def _count(value) -> int | None:
    """A token count as the store keeps it: a plain non-negative integer, or None."""
    return value if type(value) is int and 0 <= value < 2**62 else None


def _plain(messages: list[dict]) -> list[dict]:
    return [dict(m) for m in messages]
