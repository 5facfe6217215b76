"""Why one attempt of an LLM call failed, told apart by exception type along the cause chain (never
by message text), and whether the SDK's rules say to try again (408, 409, 429 and 5xx; Retry-After)."""

from __future__ import annotations

import email.utils
import math
import socket
import ssl
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # checked against the library installed with openai here
    import httpx2 as httpx
else:
    try:
        import httpx2 as httpx  # the openai SDK's HTTP library from openai 3 on
    except ImportError:  # openai 1.x and 2.x use httpx
        import httpx  # openai before 3.0

from .transport import BadReply as _BadReply


@dataclass
class Failure:
    kind: str  # timeout | connection | status | stream | reply | cancelled | other
    detail: str  # short, for the record
    retry: bool
    status: int | None = None
    server_message: str = ""
    retry_after: float | None = None


def phrase(status: int | None) -> str:
    if status is None:
        return "error"
    try:
        return HTTPStatus(status).phrase
    except (ValueError, TypeError):
        return "error"


def classify(e: Exception, timeout_s: float) -> Failure:
    import openai  # loaded by the client's constructor already (see there)

    bad = _along_causes(e, _BadReply)  # the SDK wraps what the response hook raises
    if bad is not None:
        return Failure(bad.kind, bad.detail, bad.kind not in ("cancelled", "refused"))
    if isinstance(e, UnicodeDecodeError):
        return Failure("reply", "the endpoint sent bytes that are not valid UTF-8 (refused)", True)
    if isinstance(e, (openai.APITimeoutError, httpx.TimeoutException)):
        return Failure("timeout", f"timed out after {timeout_s:g} s", True)
    if isinstance(e, (openai.APIConnectionError, httpx.TransportError)):
        reason = _connection_reason(e)
        return Failure("connection", reason, reason not in LASTING)
    if isinstance(e, openai.APIStatusError):
        status = e.status_code
        said = _server_message(e.body)
        retry = status == 429 or status >= 500 or status in (408, 409)
        detail = f"HTTP {status} {phrase(status)}" + (f": {said}" if said else "")
        return Failure("status", detail, retry, status, said, _retry_after(e.response.headers))
    if isinstance(e, openai.APIResponseValidationError):
        return Failure("status", f"unexpected response: {e.message}", False, e.status_code, e.message[:200])
    if isinstance(e, openai.APIError):  # an error event in the middle of a stream
        return Failure("stream", e.message[:200], True)
    return Failure("other", f"{type(e).__name__}: {e}"[:300], False)


CONNECTION_REASONS = (  # (exception types, what the user reads), the first found along the cause chain wins
    (ConnectionRefusedError, "connection refused"),
    (socket.gaierror, "host name not found"),
    (
        (httpx.RemoteProtocolError, ConnectionResetError, ConnectionAbortedError, BrokenPipeError),
        "the server closed the connection without a reply",
    ),
    (
        ssl.SSLCertVerificationError,
        "a TLS certificate problem: the server's certificate is not trusted (self-signed, expired or for another host)",
    ),
    (ssl.SSLError, "TLS handshake failed (is the URL http:// or https:// as the server expects?)"),
    (
        httpx.LocalProtocolError,
        "kt-tui could not send a valid HTTP request: a header holds a character HTTP forbids (check OPENAI_API_KEY)",
    ),
)
LASTING = {reason for _, reason in CONNECTION_REASONS[-3:]}  # the same on every attempt: not retried


def _along_causes(e: BaseException, kind: type):
    seen: BaseException | None = e
    n = 0
    while seen is not None and n < 20:
        if isinstance(seen, kind):
            return seen
        seen, n = seen.__cause__ or seen.__context__, n + 1
    return None


def _connection_reason(e: BaseException) -> str:
    chain: list[BaseException] = []
    seen: BaseException | None = e
    while seen is not None and len(chain) < 20:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for kinds, reason in CONNECTION_REASONS:
        if any(isinstance(c, kinds) for c in chain):
            return reason
    cause = chain[-1]
    return (str(cause) or type(cause).__name__)[:200]


def _server_message(body) -> str:
    if isinstance(body, dict):
        inner = body.get("error", body)
        body = inner.get("message", inner) if isinstance(inner, dict) else inner
    return "" if body is None else str(body)[:200]


def _retry_after(headers) -> float | None:
    """Seconds to wait from retry-after-ms or Retry-After (seconds or an HTTP date), as the SDK reads them."""
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 1000), ("retry-after", 1)):
        try:
            value = float(headers.get(name) or "")
        except ValueError:
            continue
        if math.isfinite(value):
            return value / scale
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()
