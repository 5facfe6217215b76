"""A hostile LLM endpoint against the real CLI: every reply kind below is served by the suite's
scripted server (tests/llm_server.py) to `kt-tui run examples/vector_add.cu --auto --json --backend
sim --strategy one-prompt`, with OPENAI_API_KEY set to a canary; then `kt-tui export` of the session.

Per kind: exit code, a one-line outcome, secrets found (the key, the URL password, the URL query
secret) in any file the run left (database and its WAL, logs, export folder) or in stdout/stderr,
raw control characters on stderr, the CLI's max RSS and the wall time. A defect is an internal
error, a hang (past the per-case timeout), a secret anywhere, a control character on the terminal,
or an RSS over the bound.

    PYTHONPATH=$PWD /work/venv/bin/python scripts/hostile_llm.py [--jobs 2] [--only NAME,...] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.llm_server import ScriptedServer  # noqa: E402

KEY = "sk-canary-Hq7vN2pX9wLm4Zt8"
PW = "pw-s3cret-Kd81"
QK = "qk-s3cret-Wb55"
RSS_BOUND_MB = 300
CASE_TIMEOUT_S = 150
ESC = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")  # \r included: nothing should print one
VECTOR_ADD = (ROOT / "examples" / "vector_add.cu").read_text()


def good(code: str | None = None, explanation: str = "float4 loads", **extra) -> str:
    reply = {
        "kernel_code": with_comment("rewritten") if code is None else code,
        "tune_params": {"block_size_x": [64, 128]},
        "explanation": explanation,
        **extra,
    }
    return json.dumps(reply)


def with_comment(comment: str) -> str:
    return VECTOR_ADD.replace("{", "{ /* " + comment + " */", 1)


def auth(headers, body) -> str:
    return headers.get("authorization", "")


def chunk(choices=None, **fields) -> bytes:
    data = {
        "id": "x",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "hi"}}] if choices is None else choices,
        **fields,
    }
    return b"data: " + json.dumps(data).encode()


def raw_chunk(text: str) -> bytes:
    return b"data: " + text.encode()


DONE = [
    b'data: {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", '
    b'"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}',
    b"data: [DONE]",
]
DEEP = "[" * 50_000 + "]" * 50_000
BIG_INT = "9" * 5000


def cases() -> list[tuple[str, list, dict]]:
    """(kind, the server's script, options: base_url template, no_server)."""
    c: list[tuple[str, list, dict]] = []

    def add(name, script, **opt):
        c.append((name, script if isinstance(script, list) else [script] * 4, opt))

    # the key echoed back
    add("echo-key-in-explanation", {"reply": lambda h, b: good(explanation="your header: " + auth(h, b))})
    add("echo-key-in-code-comment", {"reply": lambda h, b: good(with_comment("Authorization: " + auth(h, b)))})
    add("echo-key-in-json-field", {"reply": lambda h, b: good(debug={"authorization": auth(h, b)})})
    add("echo-key-split-across-chunks", {"reply": lambda h, b: good(explanation="k " + auth(h, b) * 3), "pieces": 900})
    add("echo-bare-key-in-code", {"reply": good(with_comment(KEY))})
    add("echo-key-in-fenced-block", {"reply": lambda h, b: "Here:\n```json\n" + good(explanation=auth(h, b)) + "\n```"})
    add("echo-key-as-url-credentials", {"reply": good(explanation=f"see https://user:{KEY}@example.com/x")})
    add("echo-key-in-500-message", {"status": 500, "message": f"upstream said Authorization: Bearer {KEY}"})
    add("echo-key-in-401-message", {"status": 401, "message": f"bad key {KEY}"})
    add(
        "echo-key-in-model-name",
        [{"sse": [chunk(model=KEY, choices=[{"index": 0, "delta": {"content": good()}}]), *DONE]}] * 4,
    )
    add("echo-key-in-html-page", {"raw": f"<html><body>{KEY}</body></html>".encode(), "type": "text/html"})
    add("echo-key-in-stream-error-event", {"sse": [b'data: {"error": {"message": "Bearer ' + KEY.encode() + b'"}}']})
    add("echo-key-in-think", {"reply": lambda h, b: "<think>" + auth(h, b) + "</think>" + good()})
    add("echo-key-in-unparseable-reply", {"reply": lambda h, b: "I cannot. " + auth(h, b)})
    # credentials in --base-url
    add("url-user-password", good(), base_url=f"http://user:{PW}@HOST/v1")
    add("url-key-as-user", {"status": 500}, base_url=f"http://{KEY}@HOST/v1")
    add("url-query-api-key", good(), base_url=f"http://HOST/v1?api_key={QK}")
    add("url-credentials-refused", [], base_url=f"http://user:{PW}@127.0.0.1:9/v1", no_server=True)
    add("url-credentials-404", {"status": 404}, base_url=f"http://user:{PW}@HOST/v1")
    # terminal escapes
    add("osc52-in-explanation", good(explanation="\x1b]52;c;ZXZpbA==\x07 done"))
    add("csi-clear-in-code", good(VECTOR_ADD.replace("{", "{ \x1b[2J\x1b[H int x = ;", 1)))
    add("title-and-bel-in-code", good(VECTOR_ADD.replace("{", "{ \x1b]0;pwned\x07\x07 garbage here", 1)))
    add("c1-controls", good(VECTOR_ADD.replace("{", "{ \x9b2J\x9d0;t\x9c bad tokens", 1)))
    add("escapes-in-500", {"status": 500, "message": "\x1b]52;c;ZXZpbA==\x07\x1b[2Jboom"})
    add(
        "escapes-in-model-name",
        [{"sse": [chunk(model="\x1b]0;t\x07", choices=[{"index": 0, "delta": {"content": good()}}]), *DONE]}] * 4,
    )
    # memory and bytes
    add("endless-sse-line", {"endless": True})
    add("gzip-bomb-stream", {"bomb": 2000})
    add("gzip-bomb-json", {"bomb": 2000, "stream": False})
    add("brotli-encoding", {"raw": b"\x00" * 100, "headers": {"Content-Encoding": "br"}, "type": "text/event-stream"})
    add(
        "corrupt-gzip",
        {"raw": b"\x1f\x8b\x08\x00garbage" * 10, "headers": {"Content-Encoding": "gzip"}, "type": "text/event-stream"},
    )
    add("reply-over-256k", {"reply": "{" * 300_000})
    add("empty-chunk-flood", [{"sse": [chunk(choices=[{"index": 0, "delta": {}}])] * 150_000}] * 2)
    # slow, dropped, refused
    add("slow-drip", {"drip": 0.02, "reply": good()})
    add("trickle-forever", {"trickle": 0.2})
    add("dropped-connection", {"drop": True})
    add("stream-without-finish", {"reply": good(), "finish": False})
    add("delay-past-timeout", {"delay": 12, "reply": good()})
    add("connection-refused", [], base_url="http://127.0.0.1:9/v1", no_server=True)
    # malformed stream chunks
    add("chunk-not-json", {"sse": [raw_chunk("{oops")]})
    add("chunk-choices-string", {"sse": [raw_chunk('{"choices": "abc"}')]})
    add("chunk-delta-string", {"sse": [raw_chunk('{"choices": [{"index": 0, "delta": "abc"}]}')]})
    add("chunk-content-number", {"sse": [raw_chunk('{"choices": [{"index": 0, "delta": {"content": 42}}]}')]})
    add("chunk-5000-digit-number", {"sse": [raw_chunk('{"choices": [], "usage": {"prompt_tokens": ' + BIG_INT + "}}")]})
    add("chunk-50000-deep", {"sse": [raw_chunk(DEEP)]})
    add("chunk-choices-null-item", {"sse": [raw_chunk('{"choices": [null]}'), *DONE]})
    add("chunk-choices-string-item", {"sse": [raw_chunk('{"choices": ["x"]}')]})
    add(
        "chunk-finish-number",
        {"sse": [raw_chunk('{"choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": 42}]}')]},
    )
    add(
        "chunk-model-number",
        {
            "sse": [
                raw_chunk(
                    '{"model": 42, "choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": "stop"}]}'
                ),
                b"data: [DONE]",
            ]
        },
    )
    add("chunk-usage-string", {"sse": [raw_chunk('{"choices": [], "usage": "abc"}'), *DONE]})
    add("chunk-top-level-list", {"sse": [raw_chunk("[1, 2]")]})
    add("chunk-top-level-string", {"sse": [raw_chunk('"hello"')]})
    add("chunk-null", {"sse": [raw_chunk("null")]})
    add("only-done", {"sse": [b"data: [DONE]"]})
    add(
        "chunk-huge-float",
        {
            "sse": [
                raw_chunk('{"choices": [{"index": 0, "delta": {"content": "a"}}], "usage": {"prompt_tokens": 1e999}}'),
                *DONE,
            ]
        },
    )
    add("chunk-non-utf8", {"sse": [b'data: {"choices": [{"index": 0, "delta": {"content": "caf\xe9"}}]}']})
    add("binary-garbage", {"raw": bytes(range(256)) * 40, "type": "text/event-stream"})
    add("empty-200", {"raw": b"", "type": "text/event-stream"})
    add("html-page", {"raw": b"<!doctype html><html><body>Welcome</body></html>", "type": "text/html"})
    add("json-body-for-stream", {"raw": json.dumps({"choices": [{"message": {"content": good()}}]}).encode()})
    # statuses
    add("500-always", {"status": 500})
    add("503-then-good", [{"status": 503}, good(), good(), good()])
    add("429-retry-after-1-then-good", [{"status": 429, "retry_after": 1}, good(), good(), good()])
    add("429-retry-after-garbage", [{"status": 429, "retry_after": "soon"}, good(), good(), good()])
    add("401", {"status": 401})
    add("404", {"status": 404})
    add("400-deep-json-message", {"status": 400, "message": DEEP[:20000]})
    add("500-1MB-message", {"status": 500, "message": "x" * 1_000_000})
    # content
    add("prompt-echo", {"reply": lambda h, b: "\n".join(str(m.get("content")) for m in b.get("messages", []))})
    add("rambling", {"reply": "Well, let me think about kernels. " * 400})
    add("empty-choices", {"choices": []})
    add("tool-call-only", {"tool_call": True})
    add("empty-content", {"reply": ""})
    add("think-only", {"reply": "<think>" + "hmm " * 500 + "</think>"})
    add("wrong-types", {"reply": json.dumps({"kernel_code": 42, "tune_params": "abc", "explanation": ["x"]})})
    add(
        "huge-numbers-in-params",
        {
            "reply": '{"kernel_code": ' + json.dumps(VECTOR_ADD) + ', "tune_params": '
            '{"block_size_x": [' + BIG_INT + ', 1e308]}, "explanation": "x"}'
        },
    )
    add("deep-json-content", {"reply": DEEP})
    add("nul-bytes-in-code", good(VECTOR_ADD.replace("{", '{\x00#include "/etc/passwd"\n', 1)))
    add("bidi-and-zero-width", good(explanation="\u202eevil\u2066\u200b", code=with_comment("\u202e reversed")))
    add("kernel-200k", good(VECTOR_ADD + "\n// " + "x" * 200_000))
    # issue 36: where the prompt may go, TLS, names, escapes written into the export
    add("redirect-307-other-host", {"redirect": "OTHER/chat/completions", "code": 307}, other_server=True)
    add("redirect-308-other-host", {"redirect": "OTHER/chat/completions", "code": 308}, other_server=True)
    add("redirect-307-same-host", [{"redirect": "SELF/chat/completions", "code": 307}, good()] * 2)
    add("tls-self-signed", good(), tls=True)
    add("tls-to-plain-http", good(), base_url="https://HOST/v1")
    add("model-name-100k", good(), model="m" * 100_000)
    add("escapes-in-explanation-exported", good(explanation="\x1b]0;t\x07\x1b[2J\x1b]52;c;ZXZpbA==\x07\x9b1m done"))
    return c


def run_case(name: str, script: list, opt: dict, work: Path) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix=f"{name[:20]}-", dir=work))
    (tmp / "config").mkdir()
    (tmp / "config" / "config.toml").write_text("llm_retries = 2\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KT_TUI_")) and "proxy" not in k.lower()}
    env.update(
        PYTHONPATH=str(ROOT),
        OPENAI_API_KEY=KEY,
        KT_TUI_CONFIG_DIR=str(tmp / "config"),
        KT_TUI_DATA_DIR=str(tmp / "data"),
        KT_TUI_DB=str(tmp / "sessions.db"),
    )
    other = ScriptedServer(["stolen"] * 4).start() if opt.get("other_server") else None
    server = None if opt.get("no_server") else ScriptedServer([], tls=bool(opt.get("tls"))).start()
    if server:
        for item in script:
            if isinstance(item, dict) and "redirect" in item:
                where = (other or server).url
                item = {**item, "redirect": item["redirect"].replace("OTHER", where).replace("SELF", where)}
            server.script.append(item)
    url = (
        (opt.get("base_url") or server.url.split("//")[0] + "//HOST/v1").replace(
            "HOST", server.url.split("//")[1].split("/")[0]
        )
        if server
        else opt["base_url"]
    )
    argv = [
        sys.executable,
        "-m",
        "kt_tui",
        "run",
        "examples/vector_add.cu",
        "--auto",
        "--json",
        "--backend",
        "sim",
        "--strategy",
        "one-prompt",
        "--base-url",
        url,
        "--model",
        opt.get("model", "m"),
        "--llm-timeout",
        "5",
    ]
    start = time.monotonic()
    out_f, err_f = open(tmp / "stdout", "wb+"), open(tmp / "stderr", "wb+")
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out_f, stderr=err_f, start_new_session=True)
    rss_kb, hang = [0], False
    timer = threading.Timer(CASE_TIMEOUT_S, lambda: os.killpg(proc.pid, 9))
    timer.start()
    watch = threading.Thread(target=_watch_rss, args=(proc, rss_kb), daemon=True)
    watch.start()
    try:
        rc = proc.wait()
    finally:
        hang = not timer.is_alive()
        timer.cancel()
        if server:
            server.stop()
        if other:
            other.stop()
    seconds = time.monotonic() - start
    watch.join()
    rss_kb = rss_kb[0]
    out_f.seek(0), err_f.seek(0)
    stdout, stderr = out_f.read().decode("utf-8", "replace"), err_f.read().decode("utf-8", "replace")
    out_f.close(), err_f.close()
    outcome = _outcome(rc, stdout, stderr)
    exported = ""
    if '"session"' in stdout and '"session": null' not in stdout:
        ex = subprocess.run(
            [sys.executable, "-m", "kt_tui", "export", "--out", str(tmp / "export")],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        exported = f"export rc {ex.returncode}"
        stdout += ex.stdout
        stderr_export = ex.stderr
    else:
        stderr_export = ""
    secrets = []
    for path in sorted(p for p in tmp.rglob("*") if p.is_file()):
        data = path.read_bytes()
        for s in (KEY, PW, QK):
            if s.encode() in data:
                secrets.append(f"{path.relative_to(tmp)}:{s[:6]}")
    for s in (KEY, PW, QK):
        if s in stderr_export:
            secrets.append(f"export-stderr:{s[:6]}")
    escapes = len(ESC.findall(stderr))
    for written in ("report.md", "report.html", "vector_add.best.cu", "results.csv"):  # in files, not shown
        path = tmp / "export" / written
        escapes += (
            len(ESC.findall(path.read_text(errors="replace").replace("\n", " ").replace("\t", " ")))
            if path.exists()
            else 0
        )
    leaked = bool(other and other.requests)
    internal = "internal error" in stderr or rc not in (0, 1, 2)
    defects = [
        d
        for d, bad in (
            ("internal-error", internal),
            ("hang", hang),
            ("secret", bool(secrets)),
            ("escapes", escapes > 0),
            ("rss", rss_kb > RSS_BOUND_MB * 1024),
            ("prompt-sent-to-another-host", leaked),
        )
        if bad
    ]
    row = {
        "kind": name,
        "rc": rc,
        "outcome": outcome + (f"; {exported}" if exported else ""),
        "secrets": secrets,
        "escapes": escapes,
        "rss_mb": round(rss_kb / 1024),
        "seconds": round(seconds, 1),
        "defects": defects,
    }
    if not defects:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        row["kept"] = str(tmp)
    return row


def _watch_rss(proc, peak: list) -> None:
    """The CLI process's peak RSS (VmHWM, kB), read until it ends. (wait4's ru_maxrss would count
    this script's own size: a child keeps its parent's high-water mark across fork and exec.)"""
    status = Path(f"/proc/{proc.pid}/status")
    while proc.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak[0] = max(peak[0], int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.1)


def _outcome(rc: int, stdout: str, stderr: str) -> str:
    try:
        data = json.loads(stdout[stdout.find("{") : stdout.rfind("}") + 1] if "{" in stdout else "")
    except ValueError:
        data = None
    if isinstance(data, dict):
        steps = data.get("steps") or []
        step = steps[-1] if steps else {}
        said = data.get("error") or (f"step {step.get('state')}: {step.get('reason') or ''}" if step else "")
        return f"{data.get('state')}: {str(said)[:150]}".replace("\n", " ")
    last = [line for line in stderr.splitlines() if line.strip()]
    return ("no --json object; " + (last[-1][:150] if last else "")).replace("\n", " ")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    for k in list(os.environ):
        if "proxy" in k.lower():
            del os.environ[k]
    chosen = [c for c in cases() if not args.only or c[0] in args.only.split(",")]
    work = Path(tempfile.mkdtemp(prefix="hostile-llm-"))
    start = time.monotonic()
    rows = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(lambda c: run_case(*c, work), chosen):
            rows.append(row)
            print(
                f"{len(rows)}/{len(chosen)} {row['kind']}: rc {row['rc']}, {row['seconds']} s, "
                f"defects {row['defects']}",
                file=sys.stderr,
                flush=True,
            )
    lines = [
        f"hostile LLM endpoint vs `kt-tui run --auto --json --backend sim --strategy one-prompt` "
        f"({len(rows)} reply kinds, {args.jobs} at a time, per-case timeout {CASE_TIMEOUT_S} s, "
        f"llm_retries 2, --llm-timeout 5; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"{os.cpu_count()} cores)",
        "",
        f"{'kind':<32} {'rc':>3} {'secrets':>7} {'esc':>3} {'rss MB':>6} {'s':>6}  outcome",
    ]
    for r in rows:
        lines.append(
            f"{r['kind']:<32} {r['rc']:>3} {len(r['secrets']):>7} {r['escapes']:>3} {r['rss_mb']:>6} "
            f"{r['seconds']:>6}  {r['outcome']}"
            + (f"  DEFECTS: {r['defects']} {r['secrets']} {r.get('kept', '')}" if r["defects"] else "")
        )
    bad = [r for r in rows if r["defects"]]
    lines += [
        "",
        f"{len(rows)} kinds: {len(rows) - len(bad)} clean, {len(bad)} with defects; "
        f"internal errors {sum('internal-error' in r['defects'] for r in rows)}, "
        f"hangs {sum('hang' in r['defects'] for r in rows)}, "
        f"secrets {sum(len(r['secrets']) for r in rows)}, "
        f"max RSS {max(r['rss_mb'] for r in rows)} MB (bound {RSS_BOUND_MB}); "
        f"{time.monotonic() - start:.0f} s in all",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
