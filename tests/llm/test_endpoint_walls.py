"""What an endpoint cannot make kt-tui do (issue 36, item 6): a redirect to another host is not
followed (the prompt holds the kernel's source), a same-host one is; TLS failures and a header HTTP
forbids are not retried as if transient, and a self-signed certificate is named as a certificate
problem; a 100 000-character model name is refused before anything starts."""

import pytest

from kt_tui import cli
from kt_tui.llm.client import LlmClient, LlmError
from kt_tui.llm.errors import LlmUnavailable
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..llm_server import ScriptedServer

MSGS = [{"role": "user", "content": "the kernel: __global__ void secret_kernel() {}"}]


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(k, raising=False)


def _call(url: str, key: str = "", model: str = "m") -> tuple[list[dict], Exception | None]:
    records: list[dict] = []
    client = LlmClient(url, model, key, timeout_s=10, max_retries=3, backoff_s=0.01, on_call=records.append)
    try:
        client.complete("test", MSGS)
    except LlmError as e:
        return [r for r in records if r["state"] == "failed"], e
    return records, None


@pytest.mark.parametrize("code", [307, 308])
def test_a_redirect_to_another_host_is_not_followed(code):
    with (
        ScriptedServer(["stolen"]) as other,
        ScriptedServer([{"redirect": other.url + "/chat/completions", "code": code}] * 3) as named,
    ):
        failed, error = _call(named.url)
        assert other.requests == [], "the prompt went to the other host"
        assert error is not None and "redirected the request" in str(error) and "not followed" in str(error)
        assert len(failed) == 1  # refused, not retried: every attempt would meet it again


def test_a_redirect_on_the_same_host_is_followed():
    with ScriptedServer([]) as server:
        server.script += [{"redirect": server.url + "/chat/completions", "code": 307}, "hello"]
        records, error = _call(server.url)
        assert error is None and len(server.requests) == 2


def test_a_self_signed_certificate_is_named_and_not_retried():
    with ScriptedServer(["hello"], tls=True) as server:
        failed, error = _call(server.url)
    assert error is not None and "TLS certificate problem" in str(error) and "http:// or https://" not in str(error)
    assert len(failed) == 1


def test_https_to_a_plain_http_server_is_not_retried():
    with ScriptedServer(["hello"]) as server:
        failed, error = _call(server.url.replace("http://", "https://"))
    assert error is not None and "TLS handshake failed" in str(error) and len(failed) == 1


def test_a_header_http_forbids_is_named_and_not_retried():
    with ScriptedServer(["hello"]) as server:
        failed, error = _call(server.url, key="sk-abc\nX-Evil: 1")
    assert error is not None and "header holds a character HTTP forbids" in str(error) and len(failed) == 1
    assert server.requests == []


def test_a_huge_model_name_is_refused_at_once(hermetic, capsys):
    with pytest.raises(LlmUnavailable, match="at most 256 characters"):
        LlmClient("http://127.0.0.1:9/v1", "m" * 100_000, "")
    argv = ["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "sim", "--strategy", "one-prompt"]
    argv += ["--sim-cache", str(EXAMPLES / "recorded"), "--base-url", "http://127.0.0.1:9/v1", "--model", "m" * 100_000]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "--model: must be at most 256 characters long, not 100000" in err and "internal error" not in err
    db = hermetic / "sessions.db"
    assert not db.exists() or Store(db).sessions() == []  # refused before a session was made
