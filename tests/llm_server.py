"""A scripted OpenAI-compatible chat server for tests (stdlib only). What it serves is scripted text.

Script items, one per POST /v1/chat/completions:
  "text"                               a reply (streamed as SSE chunks when the request asks for it)
  {"reply": "text", "usage": False}    a reply; usage=False leaves the usage out (as some servers do)
  {"status": 429, "retry_after": 0}    an error status, with an optional Retry-After header and "message"
  {"delay": 1.5, "reply": "text"}      wait first (client timeouts)
  {"drop": True}                       close the connection without a response
  {"trickle": 0.5}                     stream one token every 0.5 s until the client goes away
  {"reply": "text", "finish": False}   stream the text, then end without a finish_reason or [DONE]
  {"raw": b"...", "type": "text/html"} answer 200 with these bytes as they are
  {"tool_call": True}                  a reply that holds only a tool call, no text
  {"choices": []}                      a reply with an empty choices list
Hostile modes (tests/llm/test_hostile_endpoints.py, scripts/hostile_llm.py):
  {"reply": callable}                  the reply is callable(request headers, request body) -> text
  {"reply": "text", "pieces": 40}      stream the text in that many chunks
  {"raw": b"...", "headers": {...}}    extra response headers (Content-Encoding, ...)
  {"sse": [b"data: ...", ...]}         these SSE events as they are, then the connection closes
  {"endless": True, "pace": 0.01}      an SSE line that never ends (64 KB every pace s), until the client goes away
  {"bomb": 2000, "stream": True}       a gzip body of about that many MB once inflated (2 KB per MB sent)
  {"drip": 0.05, "reply": "text"}      a whole streamed reply, one byte every 0.05 s
  {"redirect": URL, "code": 307}       a redirect to URL (another host's, or this one's)
ScriptedServer(script, tls=True): served over TLS with a self-signed certificate (openssl makes it).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

MODEL = "scripted-model"


class ScriptedServer:
    def __init__(self, script: list, tls: bool = False):
        self.tls = tls
        self.script = list(script)
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self.ended: list[float] = []  # when each POST's handler finished (a client that went away ends a trickle)
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host}:{port}/v1"

    def start(self) -> ScriptedServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        if self.tls:
            self._httpd.socket = _self_signed().wrap_socket(self._httpd.socket, server_side=True)
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def next_item(self, body: dict, headers: dict):
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            return self.script.pop(0) if self.script else None


def _handler(server: ScriptedServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path.rstrip("/") == "/v1/models":
                self._json(
                    200,
                    {"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "tests"}]},
                )
            else:
                self._error(404, f"no route {self.path}")

        def do_POST(self):
            try:
                self._post()
            finally:
                server.ended.append(time.monotonic())

        def _post(self):
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                return self._error(400, "body is not JSON")
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._error(404, f"no route {self.path}")
            item = server.next_item(body, {k.lower(): v for k, v in self.headers.items()})
            if item is None:
                return self._error(500, "script exhausted")
            if isinstance(item, str):
                item = {"reply": item}
            if item.get("delay"):
                time.sleep(item["delay"])
            if item.get("drop"):
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if "redirect" in item:
                self.send_response(item.get("code", 307))
                self.send_header("Location", item["redirect"])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            if callable(item.get("reply")):
                item = {**item, "reply": item["reply"](server.headers[-1], body)}
            if "raw" in item:
                return self._raw(item["raw"], item.get("type", "application/json"), item.get("headers"))
            if "sse" in item or "endless" in item or "bomb" in item or "drip" in item:
                try:
                    return self._hostile(body, item)
                except (BrokenPipeError, ConnectionResetError):
                    return None
            if "status" in item:
                headers = {} if item.get("retry_after") is None else {"Retry-After": str(item["retry_after"])}
                return self._error(item["status"], item.get("message", f"scripted {item['status']}"), headers)
            try:
                if item.get("trickle"):
                    return self._trickle(body, item["trickle"])
                self._reply(body, item.get("reply", ""), item.get("usage", True), item)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout): nothing to answer

        def _raw(self, data: bytes, kind: str, headers: dict | None = None):
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _hostile(self, body: dict, item: dict):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if item.get("stream", True) else "application/json")
            if "bomb" in item:
                self.send_header("Content-Encoding", "gzip")
            self.end_headers()
            self.close_connection = True
            if "sse" in item:
                for event in item["sse"]:
                    self.wfile.write(event + b"\n\n")
                self.wfile.flush()
            elif "endless" in item:
                self.wfile.write(b'data: {"choices": [{"index": 0, "delta": {"content": "')
                while not server.stopping.is_set():
                    self.wfile.write(b"a" * 65536)
                    if item.get("pace"):
                        time.sleep(item["pace"])
            elif "bomb" in item:
                head, block, tail = _bomb_parts(item.get("stream", True))
                self.wfile.write(head)
                for _ in range(int(item["bomb"])):
                    self.wfile.write(block)
                self.wfile.write(tail)
            else:
                chunk = {"id": "chatcmpl-scripted", "created": 0, "model": MODEL, "object": "chat.completion.chunk"}
                data = (
                    b"".join(
                        b"data: " + json.dumps({**chunk, "choices": [c]}).encode() + b"\n\n"
                        for c in (
                            {"index": 0, "delta": {"content": item.get("reply", "")}},
                            {"index": 0, "delta": {}, "finish_reason": "stop"},
                        )
                    )
                    + b"data: [DONE]\n\n"
                )
                for i in range(len(data)):
                    if server.stopping.is_set():
                        return
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                    time.sleep(item["drip"])

        def _trickle(self, body: dict, every: float):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.close_connection = True
            chunk = {
                "id": "chatcmpl-scripted",
                "created": 0,
                "model": body.get("model") or MODEL,
                "object": "chat.completion.chunk",
            }
            while not server.stopping.is_set():
                self._event({**chunk, "choices": [{"index": 0, "delta": {"content": "tok "}}]})
                time.sleep(every)

        def _reply(self, body: dict, text: str, with_usage: bool, item: dict | None = None):
            item = item or {}
            model = body.get("model") or MODEL
            prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": len(text.split()),
                "total_tokens": prompt + len(text.split()),
            }
            base = {"id": "chatcmpl-scripted", "created": int(time.time()), "model": model}
            if not body.get("stream"):
                message = {"role": "assistant", "content": text}
                if item.get("tool_call"):
                    message = {"role": "assistant", "content": None, "tool_calls": [_TOOL_CALL]}
                reply = {
                    **base,
                    "object": "chat.completion",
                    "choices": item.get("choices", [{"index": 0, "message": message, "finish_reason": "stop"}]),
                }
                return self._json(200, {**reply, "usage": usage} if with_usage else reply)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.close_connection = True
            chunk = {**base, "object": "chat.completion.chunk"}
            if "choices" in item:
                self._event({**chunk, "choices": item["choices"]})
            elif item.get("tool_call"):
                self._event(
                    {
                        **chunk,
                        "choices": [
                            {"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, **_TOOL_CALL}]}}
                        ],
                    }
                )
                self._event({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
            else:
                self._event({**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
                for part in _pieces(text, item.get("pieces", 3)):
                    self._event({**chunk, "choices": [{"index": 0, "delta": {"content": part}}]})
                if item.get("finish", True) is False:
                    return
                self._event({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            if with_usage and (body.get("stream_options") or {}).get("include_usage"):
                self._event({**chunk, "choices": [], "usage": usage})
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

        def _event(self, data: dict):
            self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
            self.wfile.flush()

        def _error(self, status: int, message: str, headers: dict | None = None):
            kind = "rate_limit_error" if status == 429 else "server_error" if status >= 500 else "invalid_request_error"
            self._json(status, {"error": {"message": message, "type": kind, "code": None}}, headers)

        def _json(self, status: int, data: dict, headers: dict | None = None):
            raw = json.dumps(data).encode()
            self.send_response(status, HTTPStatus(status).phrase)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(raw)

    return Handler


_TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "answer", "arguments": "{}"}}


def _bomb_parts(stream: bool) -> tuple[bytes, bytes, bytes]:
    """A gzip stream's head, a block that inflates to 1 MB of "a" (sent as often as wanted: each block
    is flushed in full, so it inflates the same wherever it stands) and a tail."""
    import zlib

    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    start = (
        b'data: {"choices": [{"index": 0, "delta": {"content": "'
        if stream
        else b'{"choices": [{"message": {"content": "'
    )
    head = z.compress(start) + z.flush(zlib.Z_FULL_FLUSH)
    block = z.compress(b"a" * (1 << 20)) + z.flush(zlib.Z_FULL_FLUSH)
    return head, block, z.compress(b'"}}]}\n\n') + z.flush()


def _pieces(text: str, n: int = 3) -> list[str]:
    """The text in n (or fewer) consecutive pieces."""
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.fixture
def scripted_llm():
    servers: list[ScriptedServer] = []

    def start(script: list) -> ScriptedServer:
        servers.append(ScriptedServer(script).start())
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


def _self_signed():
    """An SSL context serving a fresh self-signed certificate for 127.0.0.1 (the openssl command)."""
    import shutil
    import ssl
    import subprocess
    import tempfile

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: no self-signed certificate")
    folder = tempfile.mkdtemp(prefix="kt-tui-tls-")
    cert, key = f"{folder}/cert.pem", f"{folder}/key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-keyout", key, "-out", cert],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    shutil.rmtree(folder, ignore_errors=True)
    return context
