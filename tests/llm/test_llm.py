import json
import os
import socket
from types import SimpleNamespace

import pytest

from kt_tui.config import config_dir
from kt_tui.llm.client import LlmClient, LlmError, LlmUnavailable
from kt_tui.llm.prompts import TemplateError, messages_for, render, template_dir_user
from kt_tui.llm.schemas import Breakdown, KernelRewrite, Plan, StepVerdict, Worth
from kt_tui.llm.structured import ExtractError, StructuredReplyError, ask_structured, extract_json, parse_reply

from ..llm_server import scripted_llm  # noqa: F401

KEY = "sk-test-0123456789abcdef"
MSGS = [{"role": "user", "content": "say hello"}]


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(k, raising=False)


def client(server_or_url, records=None, **kw):
    url = server_or_url if isinstance(server_or_url, str) else server_or_url.url
    kw = {"timeout_s": 5, "max_retries": 3, "backoff_s": 0.01, **kw}
    return LlmClient(url, "scripted-model", KEY, on_call=None if records is None else _finished(records), **kw)


def _finished(records):
    """The attempts as they end (the rows written when they start are left out)."""
    return lambda r: records.append(r) if r["state"] != "running" else None


# -- client --------------------------------------------------------------------------------------


def test_plain_reply_and_usage(scripted_llm):
    server = scripted_llm(["hello there"])
    records = []
    reply = client(server, records).complete("greet", MSGS)
    assert reply.text == "hello there" and reply.attempts == 1 and reply.model == "scripted-model"
    assert (reply.tokens_in, reply.tokens_out) == (2, 2)
    assert server.requests[0]["messages"] == MSGS and not server.requests[0].get("stream")
    assert server.headers[0]["authorization"] == f"Bearer {KEY}"
    [r] = records
    assert r["purpose"] == "greet" and r["reply"] == "hello there" and r["error"] is None
    assert (r["tokens_in"], r["tokens_out"], r["attempt"], r["streamed"]) == (2, 2, 1, False)
    assert r["base_url"] == server.url and r["messages"] == MSGS
    json.dumps(r)  # the store writes records as JSON


def test_streaming_delivers_deltas_in_order(scripted_llm):
    text = "one two three four five six seven"
    server = scripted_llm([text])
    deltas, records = [], []
    reply = client(server, records).complete("greet", MSGS, stream_to=deltas.append, temperature=0.2)
    assert len(deltas) >= 3 and "".join(deltas) == text == reply.text
    body = server.requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0.2
    assert (reply.tokens_in, reply.tokens_out) == (2, 7)
    assert records[0]["streamed"] is True and records[0]["tokens_out"] == 7


def test_streaming_without_usage_is_tolerated(scripted_llm):
    server = scripted_llm([{"reply": "no usage here", "usage": False}])
    reply = client(server).complete("greet", MSGS, stream_to=lambda d: None)
    assert reply.text == "no usage here" and reply.tokens_in is None and reply.tokens_out is None


def test_429_then_success_is_retried(scripted_llm):
    server = scripted_llm([{"status": 429, "retry_after": 0}, "ok"])
    records = []
    reply = client(server, records).complete("greet", MSGS)
    assert reply.text == "ok" and reply.attempts == 2
    assert [r["attempt"] for r in records] == [1, 2]
    assert "429" in records[0]["error"] and records[0]["reply"] is None
    assert records[1]["error"] is None and records[1]["reply"] == "ok"


def test_retry_after_header_is_honoured(scripted_llm):
    server = scripted_llm([{"status": 503, "retry_after": 0.3}, "ok"])
    c, waits = client(server), []
    real = c._wait
    c._wait = lambda attempt, retry_after: waits.append(real(attempt, retry_after)) or waits[-1]
    assert c.complete("greet", MSGS).text == "ok"
    assert waits == [0.3]  # the wait before the second attempt is the header's


def test_500_three_times_fails_after_max_retries(scripted_llm):
    server = scripted_llm([{"status": 500, "message": "boom"}] * 3 + ["never served"])
    records = []
    with pytest.raises(LlmError) as e:
        client(server, records).complete("greet", MSGS)
    assert len(server.requests) == 3 and len(records) == 3
    assert "500" in str(e.value) and "after 3 attempts" in str(e.value) and "boom" in str(e.value)
    assert server.url in str(e.value)


def test_timeout_is_retried_then_fails(scripted_llm):
    server = scripted_llm([{"delay": 1.0, "reply": "late"}] * 2)
    records = []
    with pytest.raises(LlmError) as e:
        client(server, records, timeout_s=0.2, max_retries=2).complete("greet", MSGS)
    assert "timed out" in str(e.value) and "2 attempts" in str(e.value)
    assert len(records) == 2 and all("timed out" in r["error"] for r in records)


def test_dropped_connection_is_retried(scripted_llm):
    server = scripted_llm([{"drop": True}, "after the drop"])
    records = []
    reply = client(server, records).complete("greet", MSGS, stream_to=lambda d: None)
    assert reply.text == "after the drop" and reply.attempts == 2 and records[0]["error"]


def test_dead_port_is_unreachable_quickly():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    records = []
    with pytest.raises(LlmError) as e:
        client(url, records).complete("greet", MSGS)
    assert str(e.value) == f"LLM endpoint {url} unreachable (connection refused) after 3 attempts"
    assert len(records) == 3


def test_401_is_not_retried(scripted_llm):
    server = scripted_llm([{"status": 401, "message": f"Incorrect API key provided: {KEY}"}, "never"])
    records = []
    with pytest.raises(LlmError) as e:
        client(server, records).complete("greet", MSGS)
    assert len(server.requests) == 1 and len(records) == 1
    assert "401 Unauthorized: check OPENAI_API_KEY" in str(e.value)
    assert KEY not in str(e.value) and KEY not in records[0]["error"]


def test_other_4xx_fails_at_once_with_the_server_message(scripted_llm):
    server = scripted_llm([{"status": 400, "message": "unknown field 'foo'"}])
    with pytest.raises(LlmError) as e:
        client(server).complete("greet", MSGS)
    assert len(server.requests) == 1 and "400 Bad Request: unknown field 'foo'" in str(e.value)


def test_records_never_hold_the_api_key(scripted_llm):
    server = scripted_llm(
        [{"status": 500, "message": f"bad key {KEY}"}, {"status": 429}, f"echo {KEY}", {"status": 403, "message": KEY}]
    )
    records = []
    c = client(server, records)
    c.complete("greet", [{"role": "user", "content": f"my key is {KEY}"}], stream_to=lambda d: None)
    with pytest.raises(LlmError) as e:
        c.complete("greet", MSGS)
    assert len(records) == 4
    for r in records:
        assert KEY not in repr(r)
    assert KEY not in str(e.value) and KEY not in repr(e.value)


def test_from_settings():
    settings = SimpleNamespace(llm="none", base_url=None, model="m", api_key=None)
    with pytest.raises(LlmUnavailable) as e:
        LlmClient.from_settings(settings)
    assert all(w in str(e.value) for w in ("--base-url", "OPENAI_BASE_URL", "--model", "OPENAI_API_KEY"))
    with pytest.raises(LlmUnavailable, match="no model set: pass --model NAME or set KT_TUI_MODEL"):
        LlmClient.from_settings(SimpleNamespace(llm="auto", base_url="http://x/v1", model=None, api_key=None))
    c = LlmClient.from_settings(SimpleNamespace(llm="auto", base_url="http://x/v1", model="m", api_key=None))
    assert c.model == "m" and c.base_url == "http://x/v1"


# -- extract_json -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! Here it is:\n```json\n{"a": 1}\n```\nHope it helps.', {"a": 1}),
        ('```json\n{"a": 1}\n```\nand corrected:\n```json\n{"a": 2}\n```', {"a": 2}),
        ('```json\n{"a": 1}\n```\nbad one:\n```json\n{"a": \n```', {"a": 1}),
        ("```\n[1, 2]\n```", [1, 2]),
        ('The plan is {"steps": ["x", "y"]} as asked.', {"steps": ["x", "y"]}),
        ('Use a[i] then: {"ok": true}', {"ok": True}),
        ("{'valid': True, 'reason': None}", {"valid": True, "reason": None}),
        ('{"valid": True, "reason": None}', {"valid": True, "reason": None}),
        ('{"a": [1, 2,], "b": 3,}', {"a": [1, 2], "b": 3}),
        ('{"code": "if (x) { y[0] = \'}\'; } // ]"}', {"code": "if (x) { y[0] = '}'; } // ]"}),
        ('{"code": "line one\nline two"}', {"code": "line one\nline two"}),
        ('```cuda\n__global__ void f(float *a) { a[0] = 1; }\n```\n{"explanation": "x"}', {"explanation": "x"}),
        (
            '{"kernel_code": "```cuda\nint a[2];\n```", "tune_params": {}}',
            {"kernel_code": "```cuda\nint a[2];\n```", "tune_params": {}},
        ),
        ('<think>maybe {"a": 0}?</think>{"a": 1}', {"a": 1}),
    ],
)
def test_extract_json(text, expected):
    assert extract_json(text) == expected


KERNEL = "__global__ void k(float *a) { if (a[0] > 0) { a[0] = 1; } }"
# broken replies small local models send; structured.py's docstring compares json_repair on them
REPLIES = {
    "trailing commas": ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
    "single quotes": ("{'a': 'x', 'b': 2}", {"a": "x", "b": 2}),
    "unquoted keys": ('{a: 1, b: "x"}', {"a": 1, "b": "x"}),
    "code fence": ('Here:\n```json\n{"a": 1}\n```\nDone.', {"a": 1}),
    "prose around": ('Sure! The answer is {"a": 1, "b": [2]} as asked.', {"a": 1, "b": [2]}),
    "comments": ('{\n "a": 1, // the first\n "b": 2 /* second */\n}', {"a": 1, "b": 2}),
    "python words": ('{"a": True, "b": None, "c": False}', {"a": True, "b": None, "c": False}),
    "python tuple": ("{'a': (1, 2)}", {"a": [1, 2]}),
    "escaped newlines in code": ('{"source": "int x;\\nint y;\\n"}', {"source": "int x;\nint y;\n"}),
    "raw newlines in a string": ('{"source": "int x;\nint y;"}', {"source": "int x;\nint y;"}),
    "kernel braces in a string": (json.dumps({"source": KERNEL}), {"source": KERNEL}),
    "kernel and prose with braces": (
        "Changed:\n" + json.dumps({"source": KERNEL}) + "\nHope { this helps }",
        {"source": KERNEL},
    ),
    "cuda fence before the json": ('```cuda\nint a[2] = {1, 2};\n```\n```json\n{"a": 1}\n```', {"a": 1}),
    "unquoted keys after prose with code": (
        "Use a[i] { not this }: {steps: ['x'], why: 'y'}",
        {"steps": ["x"], "why": "y"},
    ),
}


@pytest.mark.parametrize("name", REPLIES)
def test_broken_replies_of_small_models_are_read(name):
    text, expected = REPLIES[name]
    assert extract_json(text) == expected


@pytest.mark.parametrize(
    "text, reason",
    [
        ("I cannot help with that.", "no JSON"),
        ("", "empty"),
        ('{"steps": [{"title": "a"', "not closed"),
        ("{this is not json}", "no JSON that parses"),
        ('{"a": 1, "b": [1, 2}', "not closed"),  # mismatched brackets: json_repair would make {"a": 1, "b": [1, 2]}
        ('{"a": 1, "b": [1, 2', "not closed"),  # cut off: json_repair would close it
        ("{ if (a[0] > 0) { a[0] = 1; } }", "no JSON that parses"),  # json_repair: ['a[0']
    ],
)
def test_extract_json_failures(text, reason):
    with pytest.raises(ExtractError, match=reason):
        extract_json(text)


# -- ask_structured -----------------------------------------------------------------------------


def test_ask_structured_repairs_a_wrong_field(scripted_llm):
    server = scripted_llm(['{"valid": "perhaps", "reason": "x"}', '```json\n{"valid": false, "reason": "y"}\n```'])
    records, deltas = [], []
    result = ask_structured(client(server, records), "validate", MSGS, StepVerdict, stream_to=deltas.append)
    assert result.value == StepVerdict(valid=False, reason="y") and result.repairs == 1
    assert result.text.startswith("```json")
    second = server.requests[1]["messages"]
    assert second[:2] == [*MSGS, {"role": "assistant", "content": '{"valid": "perhaps", "reason": "x"}'}]
    assert "valid" in second[2]["content"] and "Input should be a valid boolean" in second[2]["content"]
    assert "JSON only" in second[2]["content"]
    assert [r["purpose"] for r in records] == ["validate", "validate:repair"]
    assert MSGS == [{"role": "user", "content": "say hello"}]  # the caller's list is left alone


def test_ask_structured_gives_up_after_max_repairs(scripted_llm):
    server = scripted_llm(["no json at all", '{"title": "x"}', '{"stepz": []}'])
    with pytest.raises(StructuredReplyError) as e:
        ask_structured(client(server), "plan", MSGS, Plan, max_repairs=2)
    assert e.value.text == '{"stepz": []}' and len(server.requests) == 3
    assert any("steps" in p and "Field required" in p for p in e.value.problems)
    assert "no JSON" in server.requests[1]["messages"][-1]["content"]


def test_a_repaired_reply_still_meets_the_schema():
    with pytest.raises(StructuredReplyError, match="valid"):
        parse_reply("{valid: 'perhaps', reason: 'x',}", StepVerdict)
    assert parse_reply("{valid: false, reason: 'x', /* why */}", StepVerdict) == StepVerdict(valid=False, reason="x")


def test_ask_structured_normalize_and_parse_reply():
    def normalize(data):
        return {"worth_it": data.pop("verdict") == "yes", **data} if isinstance(data, dict) else data

    assert parse_reply('{"verdict": "yes", "reason": "r"}', Worth, normalize) == Worth(worth_it=True, reason="r")
    with pytest.raises(StructuredReplyError) as e:
        parse_reply("nothing", Worth)
    assert e.value.text == "nothing" and e.value.problems


# -- schemas ------------------------------------------------------------------------------------


def test_schemas_accept_drift():
    assert Plan.model_validate(["a", "b"]).steps[1].title == "b"
    assert Plan.model_validate({"plan": [{"name": "t", "details": "d"}]}).steps[0].description == "d"
    assert Breakdown.model_validate([{"title": "a"}]).steps[0].title == "a"
    assert StepVerdict.model_validate({"is_valid": True}).valid is True
    assert StepVerdict.model_validate({"ok": False, "reason": "r"}) == StepVerdict(valid=False, reason="r")
    assert Worth.model_validate({"worth_it": True}).reason == ""
    r = KernelRewrite.model_validate(
        {
            "code": "```cuda\n__global__ void f() {}\n```",
            "tunable_parameters": {"block_size_x": 128, "tile": ["2", 4], "flag": [True]},
        }
    )
    assert r.kernel_code == "__global__ void f() {}"
    assert r.tune_params == {"block_size_x": [128], "tile": [2, 4], "flag": [True]}
    assert KernelRewrite.model_validate({"kernel": "k", "restrictions": "a > 1"}).restrictions == ["a > 1"]
    assert KernelRewrite.model_validate({"source": "k"}).model_dump() == {
        "kernel_code": "k",
        "tune_params": {},
        "restrictions": [],
        "explanation": "",
        "grid_div_x": None,
        "grid_div_y": None,
        "grid_div_z": None,
    }
    with pytest.raises(ValueError):
        KernelRewrite.model_validate({"tune_params": {}})


# -- prompts ------------------------------------------------------------------------------------

VALUES = dict(
    kernel_string="__global__ void vector_add(float *c) { c[0] = {0}[0]; }",
    kernel_name="vector_add",
    tune_params={"block_size_x": [64, 128]},
    restrictions=[],
    step="tile it",
    previous_steps=[],
    results=[],
    gpu="NVIDIA H200",
    problem_size=[4096],
    performance="NVIDIA H200: device facts not recorded",
)


def test_render_keeps_literal_braces():
    text = render("execute_step", **VALUES)
    assert VALUES["kernel_string"] in text and "block_size_x: [64, 128]" in text
    assert '{"kernel_code": ' in text and "{kernel_string}" not in text and "{step}" not in text
    for name in ("plan", "validate_step", "breakdown", "execute_step", "replan"):
        shape = extract_json(render(name, **VALUES).split("Reply with JSON only")[1])
        assert isinstance(shape, dict)


def test_templates_need_only_what_the_strategies_pass():
    context = {
        k: VALUES[k]
        for k in (
            "kernel_string",
            "kernel_name",
            "tune_params",
            "restrictions",
            "problem_size",
            "gpu",
            "results",
            "performance",
        )
    }
    render("plan", **context)
    for name in ("validate_step", "breakdown", "execute_step"):
        render(name, step="tile it", **context)
    render("replan", previous_steps="- tile it: done", **context)


def test_render_fails_on_missing_values():
    values = dict(VALUES)
    del values["step"]
    with pytest.raises(TemplateError, match=r"\{step\}"):
        render("execute_step", **values)
    with pytest.raises(TemplateError, match="unknown"):
        render("nonsense", **VALUES)


def test_user_template_overrides_packaged():
    assert template_dir_user() == config_dir() / "templates"
    assert str(template_dir_user()).endswith("config/templates")
    template_dir_user().mkdir(parents=True)
    (template_dir_user() / "plan.txt").write_text('Mine: {kernel_name} {"literal": {}}', encoding="utf-8")
    system, user = messages_for("plan", **VALUES)
    assert user == {"role": "user", "content": 'Mine: vector_add {"literal": {}}'}
    assert system["role"] == "system" and "kernel_tuner" in system["content"]


@pytest.mark.parametrize("kind", ["huge", "fifo", "folder", "binary"])
def test_a_user_template_that_is_no_small_text_file_is_refused_by_name(kind):
    template_dir_user().mkdir(parents=True)
    path = template_dir_user() / "plan.txt"
    if kind == "huge":
        path.write_text("{kernel_name}" + "x" * (300 << 10), encoding="utf-8")
    elif kind == "fifo":
        os.mkfifo(path)  # read as a file, it would hang the app
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"\xff\xfe{kernel_name}")
    with pytest.raises(TemplateError, match="prompt template .*plan.txt"):
        messages_for("plan", **VALUES)
