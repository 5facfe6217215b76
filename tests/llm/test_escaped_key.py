"""A reply that spells the API key with JSON \\u escapes (`"\\u0073k-..."`): the raw text never holds
the key, but its parsed JSON (a kernel, an explanation) does. The scrubber masks that spelling too, so
the key reaches no file, no compile message and no printed line."""

import json
from pathlib import Path

from kt_tui.redact import scrub

from ..helpers import run_cli
from ..llm_server import ScriptedServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEY = "sk-escaped-canary-7Hn2Wq4Pd"


def _escaped(text: str, every: int) -> str:
    return "".join(f"\\u{ord(c):04X}" if i % every == 0 else c for i, c in enumerate(text))


def test_scrub_masks_a_key_written_with_json_escapes(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    for every in (1, 2, 5, 100):
        text = f'{{"kernel_code": "#error {_escaped(KEY, every)}"}}'
        assert json.loads(text)["kernel_code"] == f"#error {KEY}"  # what a parse of the raw text gives
        out = scrub(text)
        assert out == '{"kernel_code": "#error ***"}', out
    assert scrub("\\u0041 and \\u0073k-other") == "\\u0041 and \\u0073k-other"


def test_an_escaped_key_is_in_no_file_or_printed_line(hermetic, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    code = (EXAMPLES / "vector_add.cu").read_text()
    kernel = json.dumps("#error KEY_HERE\n// KEY_HERE\n" + code).replace("KEY_HERE", _escaped(KEY, 1))
    reply = '{"kernel_code": ' + kernel + ', "tune_params": {"block_size_x": [64, 128]}, "explanation": "x"}'
    with ScriptedServer([reply] * 3) as server:
        argv = ["run", EXAMPLES / "vector_add.cu", "--strategy", "one-prompt", "--auto", "--json", "--backend", "sim"]
        run_cli(capsys, *argv, "--base-url", server.url, "--model", "m")
    run_cli(capsys, "export", "--out", hermetic / "export", "--json")
    printed = capsys.readouterr()
    assert KEY not in printed.out + printed.err
    spelled = (KEY, _escaped(KEY, 1))  # the key, and the reply's spelling of it that any JSON parse undoes
    held = [str(p) for p in sorted(hermetic.rglob("*")) if p.is_file() for s in spelled if s.encode() in p.read_bytes()]
    assert held == []
