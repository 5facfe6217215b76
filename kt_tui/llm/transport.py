"""What one attempt of an LLM call may receive, counted where the bytes arrive.

The reply limit in client.py counts the text a reply carries; an endless line, a stream of chunks
with no text or a small compressed body that inflates to gigabytes carry none and would still be
read into memory. So the HTTP client gets a response hook that puts a counter under the body:
raw bytes are counted as they come off the socket, and a gzip or deflate body is inflated here,
step by step, with the inflated bytes counted too (httpx never sees the encoding). Any other
Content-Encoding is refused. An attempt that is abandoned (timed out, cancelled) has its sockets
shut down, so its reader thread stops at once instead of downloading on."""

from __future__ import annotations

import socket
import threading
import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # checked against the library installed with openai here
    import httpx2 as httpx
else:
    try:
        import httpx2 as httpx  # the openai SDK's HTTP library from openai 3 on
    except ImportError:  # openai 1.x and 2.x use httpx
        import httpx  # openai before 3.0

MAX_BYTES = 16 << 20  # per attempt, before and after decoding: 4096 tokens of SSE are well under 2 MB
_STEP = 1 << 16
_local = threading.local()


class BadReply(Exception):
    """A reply that arrived but cannot be used (an HTML page, no choices, a malformed chunk, too many
    bytes, ...): retried like a transport error, but for kind "refused" (a redirect to another host),
    which another attempt would meet again."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind, self.detail = kind, detail


class Attempt:
    """One attempt's byte budget and the sockets it reads from."""

    def __init__(self, limit: int = MAX_BYTES):
        self.limit = limit
        self.quit = threading.Event()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def bind(self) -> None:
        """This thread's requests belong to this attempt."""
        _local.attempt = self

    def watch(self, sock) -> None:
        with self._lock:
            self._sockets.append(sock)
        if self.quit.is_set():
            self.abandon()

    def abandon(self) -> None:
        """Ends the attempt: a read blocked on one of its sockets returns now, later reads fail."""
        self.quit.set()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except (OSError, AttributeError):
                pass


def http_client(timeout_s: float, base_url: str):
    """The HTTP client the openai SDK is given: every response's body counted (see above), and a
    redirect followed only to the host of `base_url` (the SDK's client follows any): the prompt,
    the kernel's source in it, never goes to a host the user did not name."""
    import openai  # imported with the first client: see client.py

    named = _origin(httpx.URL(base_url))

    def same_host(request) -> None:
        scheme, host, port = _origin(request.url)
        if (scheme, host, port) != named:
            raise BadReply(
                "refused",
                f"the endpoint redirected the request to {scheme}://{host}:{port}, not the host of "
                "--base-url: kt-tui sends the prompt only where you point it (not followed)",
            )

    return openai.DefaultHttpxClient(
        timeout=timeout_s,
        headers={"Accept-Encoding": "gzip, deflate"},
        event_hooks={"request": [same_host], "response": [_on_response]},
    )


def _origin(url) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or {"http": 80, "https": 443}.get(url.scheme)


def _on_response(response) -> None:
    attempt = getattr(_local, "attempt", None) or Attempt()
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        attempt.watch(sock)
    codings = [c.strip().lower() for c in response.headers.get("content-encoding", "").split(",")]
    codings = [c for c in codings if c not in ("", "identity")]
    if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
        raise BadReply(
            "reply",
            f"the endpoint sent a body in Content-Encoding {', '.join(codings)[:40]!r}, which "
            "kt-tui does not read (it asks for gzip or none)",
        )
    response.stream = _Counted(response.stream, codings[0] if codings else None, attempt)
    if codings:
        del response.headers["content-encoding"]


class _Counted(httpx.SyncByteStream):
    def __init__(self, inner, coding: str | None, attempt: Attempt):
        self.inner, self.coding, self.attempt = inner, coding, attempt

    def _over(self, what: str) -> BadReply:
        return BadReply(
            "reply", f"the endpoint sent more than {self.attempt.limit >> 20} MB {what} for one reply (refused)"
        )

    def __iter__(self):
        inflate = None
        if self.coding is not None:
            inflate = zlib.decompressobj(31 if "gzip" in self.coding else 15)
        got = made = 0
        for raw in self.inner:
            if self.attempt.quit.is_set():
                raise BadReply("stream", "the attempt was abandoned")
            got += len(raw)
            if got > self.attempt.limit:
                raise self._over("on the wire")
            if inflate is None:
                yield raw
                continue
            data = raw
            while data and not inflate.eof:
                try:
                    out = inflate.decompress(data, _STEP)
                except zlib.error:
                    raise BadReply("reply", f"the endpoint's {self.coding} body is corrupt") from None
                data = inflate.unconsumed_tail
                made += len(out)
                if made > self.attempt.limit:
                    raise self._over("once inflated")
                if out:
                    yield out

    def close(self) -> None:
        self.inner.close()
