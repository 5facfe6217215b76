"""Replies that trickle, break off, lie about their shape or never end: each is a clear, retried failure."""

import json
import threading

import pytest

from kt_tui.llm.client import LlmCancelled, LlmClient, LlmError

from ..llm_server import scripted_llm  # noqa: F401

MSGS = [{"role": "user", "content": "say hello"}]


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(k, raising=False)


def client(server, records=None, **kw):
    kw = {"timeout_s": 5, "max_retries": 2, "backoff_s": 0.01, **kw}
    return LlmClient(server.url, "scripted-model", "", on_call=records.append if records is not None else None, **kw)


def test_a_trickling_stream_meets_the_total_deadline(scripted_llm):
    server = scripted_llm([{"trickle": 0.1}])
    with pytest.raises(LlmError) as e:
        client(server, timeout_s=0.6, max_retries=1).complete("greet", MSGS, stream_to=lambda d: None)
    assert "timed out" in str(e.value) and "0.6 s" in str(e.value)


def test_every_request_carries_max_tokens(scripted_llm):
    server = scripted_llm(["a", "b"])
    client(server, max_tokens=777).complete("plan", MSGS, stream_to=lambda d: None)
    client(server, max_tokens=777).complete("validate_step", MSGS)
    assert server.requests[0]["max_tokens"] == 777 and server.requests[1]["max_tokens"] == 777
    server = scripted_llm(["c"])
    client(server, max_tokens=8000).complete("validate_step:repair", MSGS)
    assert server.requests[0]["max_tokens"] == 1024


def test_cancel_ends_a_call_in_flight_promptly(scripted_llm):
    server = scripted_llm([{"trickle": 0.2}])
    c = client(server, timeout_s=30)
    threading.Timer(0.3, c.cancel.set).start()
    with pytest.raises(LlmCancelled) as e:
        c.complete("greet", MSGS, stream_to=lambda d: None)
    assert "cancelled" in str(e.value)
    assert len(server.requests) == 1  # not retried


@pytest.mark.parametrize(
    "item, words",
    [
        ({"raw": b"<!doctype html><html><body>Welcome</body></html>", "type": "text/html"}, "HTML page"),
        ({"raw": b'{"choices": [{"message": {"content": "caf\xe9"}}]}'}, "not valid UTF-8"),
        ({"tool_call": True}, "only a tool call"),
        ({"choices": []}, "no choices"),
    ],
)
@pytest.mark.parametrize("streamed", [False, True])
def test_bad_replies_have_their_own_message_and_are_retried(scripted_llm, item, words, streamed):
    if streamed and "raw" in item and b"html" not in item["raw"]:
        item = {
            "raw": b'data: {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", '
            b'"choices": [{"index": 0, "delta": {"content": "caf\xe9"}}]}\n\n',
            "type": "text/event-stream",
        }
    server = scripted_llm([item, "fine"])
    records = []
    reply = client(server, records).complete("greet", MSGS, stream_to=(lambda d: None) if streamed else None)
    assert reply.text == "fine" and reply.attempts == 2
    failed = [r for r in records if r["state"] == "failed"]
    assert len(failed) == 1 and words in failed[0]["error"]
    server = scripted_llm([item, item])
    with pytest.raises(LlmError) as e:
        client(server).complete("greet", MSGS, stream_to=(lambda d: None) if streamed else None)
    assert words in str(e.value)


def test_a_stream_dropped_without_finish_reason_is_a_transport_error(scripted_llm):
    server = scripted_llm([{"reply": '{"valid": true, "re', "finish": False}, "whole"])
    records = []
    reply = client(server, records).complete("greet", MSGS, stream_to=lambda d: None)
    assert reply.text == "whole" and reply.attempts == 2
    assert "without a finish reason" in [r for r in records if r["state"] == "failed"][0]["error"]


def test_a_reply_over_the_size_limit_is_refused(scripted_llm):
    big = "[" * 300_000
    server = scripted_llm([big, big])
    with pytest.raises(LlmError) as e:
        client(server).complete("greet", MSGS, stream_to=lambda d: None)
    assert "256 KB limit" in str(e.value)


def test_the_error_names_every_attempts_problem(scripted_llm):
    server = scripted_llm([{"status": 503}, {"choices": []}, {"raw": b"<html></html>", "type": "text/html"}])
    with pytest.raises(LlmError) as e:
        client(server, max_retries=3).complete("greet", MSGS)
    text = str(e.value)
    assert "attempt 1: HTTP 503" in text and "attempt 2: the reply has no choices" in text
    assert "attempt 3: the endpoint answered with an HTML page" in text


def test_each_attempt_is_written_when_it_starts(scripted_llm):
    server = scripted_llm([{"status": 500}, "ok"])
    records = []
    client(server, records).complete("greet", MSGS)
    assert [r["state"] for r in records] == ["running", "failed", "running", "done"]
    json.dumps(records)


def test_a_whole_reply_over_the_size_limit_is_refused(scripted_llm):
    server = scripted_llm(["{" * 300_000])
    with pytest.raises(LlmError) as e:
        client(server, max_retries=1).complete("greet", MSGS)
    assert "256 KB limit" in str(e.value)


def test_cancel_during_a_retry_wait_ends_the_call_without_another_attempt(scripted_llm):
    server = scripted_llm([{"status": 429, "retry_after": 60}, "never served"])
    records = []
    c = client(server, max_retries=3)

    def on_call(row):
        records.append(row)
        if row["state"] == "failed":  # the client is about to wait 60 s for the next attempt
            threading.Thread(target=c.cancel.set).start()

    c.on_call = on_call
    with pytest.raises(LlmCancelled) as e:
        c.complete("greet", MSGS)
    assert "cancelled" in str(e.value) and len(server.requests) == 1
    assert [r["state"] for r in records] == ["running", "failed"]


def test_a_stream_broken_mid_reply_is_retried_and_recorded(scripted_llm):
    server = scripted_llm([{"reply": "the first half of a long answer", "finish": False}, {"drop": True}, "whole"])
    records, deltas = [], []
    reply = client(server, records, max_retries=3).complete("greet", MSGS, stream_to=deltas.append)
    assert reply.text == "whole" and reply.attempts == 3
    assert [r["state"] for r in records] == ["running", "failed", "running", "failed", "running", "done"]
    assert "broke off" not in records[1]["error"] and "finish reason" in records[1]["error"]
    assert "closed the connection without a reply" in records[3]["error"]


def _connection_error(cause: BaseException):
    import openai

    from kt_tui.llm.client import httpx

    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    try:
        try:
            raise cause
        except BaseException as inner:
            raise httpx.ConnectError("[Errno 0] something a translation says", request=request) from inner
    except httpx.ConnectError as outer:
        error = openai.APIConnectionError(request=request)
        error.__cause__ = outer
        return error


@pytest.mark.parametrize(
    "cause, reason",
    [
        (ConnectionRefusedError(111, "Verbindungsaufbau abgelehnt"), "connection refused"),
        (__import__("socket").gaierror(-2, "Nom ou service inconnu"), "host name not found"),
        (ConnectionResetError(104, "Connexion ré-initialisée"), "closed the connection without a reply"),
        (__import__("ssl").SSLError(1, "wrong version number"), "TLS handshake failed"),
    ],
)
def test_connection_failures_are_told_apart_by_type_not_by_message(cause, reason):
    from kt_tui.llm.failures import classify as _classify

    failure = _classify(_connection_error(cause), 5)
    assert failure.kind == "connection" and reason in failure.detail
    assert failure.retry == (reason != "TLS handshake failed")  # issue 36: a TLS failure is not transient


@pytest.mark.parametrize(
    "headers, wait",
    [
        ({"retry-after": "2"}, 2.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_is_read_as_the_sdk_reads_it(headers, wait):
    from kt_tui.llm.failures import _retry_after

    assert _retry_after(headers) == wait
