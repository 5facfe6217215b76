"""An endpoint that echoes the key, sends escapes, malformed chunks or endless bytes; credentials in
--base-url; links planted in an output folder (issue 22: items 4, 8, 9, 10, 11)."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kt_tui.llm.client import LlmClient, LlmError
from kt_tui.redact import StreamScrubber, for_terminal, mask_url, register_secret, scrub

from ..helpers import run_cli
from ..llm_server import ScriptedServer, scripted_llm  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
KEY = "sk-walls-canary-5Tq9Zr2Lx"
PW = "pw-walls-s3cret-81"
QK = "qk-walls-s3cret-55"
MSGS = [{"role": "user", "content": "say hello"}]
VECTOR_ADD = (EXAMPLES / "vector_add.cu").read_text()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(k, raising=False)


def one_prompt_reply(code_comment: str = "", explanation: str = "float4", **extra) -> str:
    code = VECTOR_ADD.replace("{", "{ /* " + code_comment + " */", 1)
    return json.dumps(
        {"kernel_code": code, "tune_params": {"block_size_x": [64, 128]}, "explanation": explanation, **extra}
    )


def files_holding(folder: Path, *secrets: str) -> list[str]:
    return [
        f"{p}:{s}" for p in sorted(folder.rglob("*")) if p.is_file() for s in secrets if s.encode() in p.read_bytes()
    ]


def test_scrub_masks_the_key_header_forms_and_url_credentials():
    register_secret(KEY)
    text = (
        f'Authorization: Bearer {KEY}\n{{"authorization": "Basic dXNlcjpwdw=="}} bearer abcdefgh1234 '
        f"http://user:{PW}@host:8/v1?api_key={QK}&x=1 https://{KEY}@host/v1 x-api-key: zzzzzz9"
    )
    out = scrub(text)
    for secret in (KEY, PW, QK, "dXNlcjpwdw", "abcdefgh1234", "zzzzzz9"):
        assert secret not in out
    assert "http://***@host:8/v1?api_key=***&x=1" in out
    assert (
        scrub("each token represents a basic step; see http://example.com/a?b=1")
        == "each token represents a basic step; see http://example.com/a?b=1"
    )
    assert mask_url(f"http://u:{PW}@h/v1") == "http://***@h/v1" and mask_url("https://h/v1") == "https://h/v1"


def test_a_key_split_across_stream_pieces_is_never_handed_on():
    register_secret(KEY)
    text = f"one {KEY} two Authorization: Bearer abcdefghij123 three http://u:{PW}@h/x\n" * 2
    for size in (1, 2, 3, 5, 7, 11):
        s = StreamScrubber()
        shown = "".join(s.feed(text[i : i + size]) for i in range(0, len(text), size)) + s.flush()
        assert KEY not in shown and "abcdefghij" not in shown and PW not in shown
        assert shown.count("one *** two") == 2


def test_for_terminal_drops_escape_sequences_and_controls():
    hostile = (
        "a\x1b]0;title\x07b\x1b]52;c;ZXZpbA==\x1b\\c\x1b[2J\x1b[Hd\x07e\x9b31mf\x9d0;x\x9cg"
        "\x1bPq#0\x1b\\h\x1b(Bi\x00\x08\x7f\r\tj\nk"
    )
    assert for_terminal(hostile) == "abcdefghi\tj\nk"


def test_for_terminal_drops_bidi_overrides_that_show_text_in_another_order():
    assert for_terminal("vec\u202etor_add\u202c \u2067x\u2069 \u200fy") == "vector_add x y"


def test_an_echoed_key_is_in_no_file_log_output_or_export(hermetic, monkeypatch, capsys):
    """The endpoint puts the Authorization header it got in the explanation, a code comment, a JSON
    field, and (streamed in 600 pieces) split across chunks. Old main: the key was stored in clear
    in llm_results, the kernel gate's body and the exported report."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)

    def echo(headers, body):
        said = headers.get("authorization", "")
        return one_prompt_reply(
            f"Authorization: {said}", explanation=f"you sent {said} and {said}", debug={"authorization": said}
        )

    with ScriptedServer([{"reply": echo, "pieces": 600}] * 3) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "one-prompt",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--base-url",
            server.url,
            "--model",
            "m",
        )
        assert server.headers[0]["authorization"] == f"Bearer {KEY}"  # the endpoint did get it
    assert code == 0 and out["steps"][-1]["version"]
    code, _ = run_cli(capsys, "export", "--out", hermetic / "export", "--json")
    assert code == 0 and (hermetic / "export" / "report.md").is_file()
    printed = capsys.readouterr()
    assert KEY not in printed.out + printed.err
    assert files_holding(hermetic, KEY) == []  # the database and its WAL, logs, the export folder


def test_credentials_in_the_base_url_are_masked_where_stored_or_printed(hermetic, monkeypatch, capsys):
    """Old main: the session's settings, error and llm_calls held user:password and the query key,
    and the --json error printed them."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with ScriptedServer([{"status": 500}] * 4) as server:
        host = server.url.split("//")[1].split("/")[0]
        url = f"http://user:{PW}@{host}/v1?api_key={QK}"
        code = __import__("kt_tui.cli", fromlist=["main"]).main(
            [
                "run",
                str(EXAMPLES / "vector_add.cu"),
                "--strategy",
                "one-prompt",
                "--auto",
                "--json",
                "--backend",
                "sim",
                "--base-url",
                url,
                "--model",
                "m",
                "--llm-timeout",
                "5",
            ]
        )
    printed = capsys.readouterr()
    data = json.loads(printed.out[printed.out.find("{") :])
    assert code == 1 and "http://***@" in data["error"] and "api_key=***" in data["error"]
    assert PW not in printed.out + printed.err and QK not in printed.out + printed.err
    assert files_holding(hermetic, PW, QK) == []


def test_escapes_from_the_endpoint_never_reach_the_terminal(hermetic, monkeypatch, capsys):
    """A 500 whose message sets the window title, writes the clipboard (OSC 52) and clears the
    screen: the headless run's stdout and stderr carry none of it (old main printed it verbatim)."""
    hostile = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31mboom\x07"
    with ScriptedServer([{"status": 500, "message": hostile}] * 4) as server:
        code = __import__("kt_tui.cli", fromlist=["main"]).main(
            [
                "run",
                str(EXAMPLES / "vector_add.cu"),
                "--strategy",
                "one-prompt",
                "--auto",
                "--backend",
                "sim",
                "--base-url",
                server.url,
                "--model",
                "m",
            ]
        )
    printed = capsys.readouterr()
    assert code == 1 and "boom" in printed.err
    assert not any(c in printed.err + printed.out for c in "\x1b\x07\x9b\x9d")


MALFORMED = {
    "not JSON": b"data: {oops",
    "choices a string": b'data: {"choices": "abc"}',
    "delta a string": b'data: {"choices": [{"index": 0, "delta": "abc"}]}',
    "content a number": b'data: {"choices": [{"index": 0, "delta": {"content": 42}}]}',
    "5000 digits": b'data: {"choices": [], "usage": {"prompt_tokens": ' + b"9" * 5000 + b"}}",
    "50000 deep": b"data: " + b"[" * 50_000 + b"]" * 50_000,
    "a choice null": b'data: {"choices": [null]}',
}


@pytest.mark.parametrize("event", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_stream_chunk_is_a_retried_transport_error(scripted_llm, event):
    """Old main: ValueError, AttributeError, TypeError or RecursionError: an internal error, no retry."""
    server = scripted_llm([{"sse": [event]}, "fine"])
    records = []
    client = LlmClient(server.url, "m", "", timeout_s=10, max_retries=2, backoff_s=0.01, on_call=records.append)
    reply = client.complete("greet", MSGS, stream_to=lambda d: None)
    assert reply.text == "fine" and reply.attempts == 2
    failed = [r for r in records if r["state"] == "failed"]
    assert len(failed) == 1 and "malformed" in failed[0]["error"]


def test_malformed_chunks_end_a_headless_run_with_a_json_error(hermetic, capsys):
    with ScriptedServer([{"sse": [MALFORMED["choices a string"]]}] * 4) as server:
        code = __import__("kt_tui.cli", fromlist=["main"]).main(
            [
                "run",
                str(EXAMPLES / "vector_add.cu"),
                "--strategy",
                "one-prompt",
                "--auto",
                "--json",
                "--backend",
                "sim",
                "--base-url",
                server.url,
                "--model",
                "m",
            ]
        )
    printed = capsys.readouterr()
    data = json.loads(printed.out[printed.out.find("{") :])
    assert code == 1 and "malformed stream chunk" in data["error"] and "internal error" not in printed.err


PROBE = """
import sys, time
from kt_tui.llm.client import LlmClient, LlmError
c = LlmClient(sys.argv[1], "m", "", timeout_s=float(sys.argv[2]), max_retries=2, backoff_s=0.01)
try:
    c.complete("greet", [{"role": "user", "content": "hi"}], stream_to=(lambda d: None) if sys.argv[3] == "1" else None)
    print("REPLY")
except LlmError as e:
    print("ERROR", e)
time.sleep(0.5)  # an abandoned reader still downloading would grow now
print("HWM", next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")))
"""


@pytest.mark.parametrize(
    "item, stream, said",
    [
        ({"endless": True}, "1", "16 MB on the wire"),
        ({"bomb": 1500}, "1", "16 MB once inflated"),
        ({"bomb": 1500, "stream": False}, "0", "16 MB once inflated"),
    ],
    ids=["endless line", "gzip bomb streamed", "gzip bomb whole"],
)
def test_endless_and_compressed_replies_stay_within_a_memory_bound(item, stream, said):
    """Old main: the endless line grew the process by gigabytes until the deadline (and on, in the
    abandoned reader); 1.5 MB of gzip inflated to 1.5 GB."""
    with ScriptedServer([item] * 2) as server:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, server.url, "20", stream],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("ERROR") and said in lines[0], proc.stdout + proc.stderr
    assert int(lines[-1].split()[1]) < 300 * 1024  # kB


def test_an_abandoned_attempt_closes_its_connection(scripted_llm):
    """A line that never ends, 6 MB/s: old main's timed-out attempt left its reader thread reading
    on (it looked at the quit flag only between chunks); the server saw the client go only when it
    stopped itself."""
    server = scripted_llm([{"endless": True, "pace": 0.01}])
    client = LlmClient(server.url, "m", "", timeout_s=0.5, max_retries=1)
    with pytest.raises(LlmError, match="timed out"):
        client.complete("greet", MSGS, stream_to=lambda d: None)
    end = time.monotonic() + 3
    while not server.ended and time.monotonic() < end:
        time.sleep(0.05)
    assert server.ended, "the server is still sending to an attempt that was given up"


def test_an_unread_content_encoding_is_refused_by_name(scripted_llm):
    server = scripted_llm(
        [{"raw": b"\x00" * 64, "headers": {"Content-Encoding": "br"}, "type": "text/event-stream"}] * 2
    )
    with pytest.raises(LlmError, match="Content-Encoding 'br'"):
        LlmClient(server.url, "m", "", timeout_s=5, max_retries=2, backoff_s=0.01).complete(
            "greet", MSGS, stream_to=lambda d: None
        )


def test_export_force_never_writes_through_a_planted_link(hermetic, capsys):
    """Old main: `export --force` wrote report.md through a link planted in the output folder, over
    the file it pointed to."""
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0
    out_dir, victim = hermetic / "out", hermetic / "victim.txt"
    victim.write_text("precious")
    code, _ = run_cli(capsys, "export", "--out", out_dir, "--json")
    assert code == 0
    (out_dir / "report.md").unlink()
    (out_dir / "report.md").symlink_to(victim)
    code, _ = run_cli(capsys, "export", "--out", out_dir, "--force", "--json")
    assert code == 2 and victim.read_text() == "precious"
    (out_dir / "report.md").unlink()
    elsewhere = hermetic / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(out_dir / "cache")
    (out_dir / "cache").symlink_to(elsewhere)  # a linked subfolder is refused too
    code, _ = run_cli(capsys, "export", "--out", out_dir, "--force", "--json")
    assert code == 2 and not any(elsewhere.iterdir())


def test_import_outputs_are_never_written_through_a_link(tmp_path):
    """The importer's writes go through refuse_existing (importer/convert.py): a planted link is
    refused even with --force."""
    from kt_tui.files import FileRefused, open_output, refuse_existing

    victim = tmp_path / "victim"
    victim.write_text("precious")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "k.cu").symlink_to(victim)
    with pytest.raises(FileRefused, match="symbolic link"):
        refuse_existing([tmp_path / "out" / "k.cu", tmp_path / "out" / "k.cu.toml"], force=True)
    with pytest.raises(FileRefused, match="symbolic link"):
        open_output(tmp_path / "out" / "k.cu")
    assert victim.read_text() == "precious"
