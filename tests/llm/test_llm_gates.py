"""LLM calls as gates: hostile replies end in a JSON summary, the user's own answer comes back to the
user when it does not parse, resume reopens a call's gate without calling again, Ctrl-C cancels."""

import json
import os
import signal
import threading

import pytest

from kt_tui.cli import main
from kt_tui.engine.asking import llm_ask
from kt_tui.engine.events import Decision
from kt_tui.llm.client import LlmClient
from kt_tui.llm.schemas import Plan
from kt_tui.llm.structured import ExtractError, ask_structured, extract_json
from kt_tui.store import SessionStore, Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer, scripted_llm  # noqa: F401

CACHES = ROOT / "sessions" / "caches"
MSGS = [{"role": "user", "content": "plan it"}]
PLAN = json.dumps({"steps": [{"title": "Unroll the loop", "description": "by four"}]})
ECHO = json.dumps(
    {"steps": [{"title": "short name of the change", "description": "what to change and why it should be faster"}]}
)
BAD_UTF8 = (
    b'data: {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m", '
    b'"choices": [{"index": 0, "delta": {"content": "\xff\xfe"}}]}\n\n'
)


@pytest.fixture
def one_attempt(hermetic):
    (hermetic / "config").mkdir(exist_ok=True)
    (hermetic / "config" / "config.toml").write_text("llm_retries = 1\n")
    return hermetic


def autonomous(capsys, server, *extra):
    return run_cli(
        capsys,
        "run",
        EXAMPLES / "vector_add.cu",
        "--strategy",
        "autonomous",
        "--auto",
        "--json",
        "--backend",
        "sim",
        "--sim-cache",
        CACHES,
        "--base-url",
        server.url,
        "--model",
        MODEL,
        *extra,
    )


@pytest.mark.parametrize(
    "item, words",
    [
        ({"raw": BAD_UTF8, "type": "text/event-stream"}, "not valid UTF-8"),
        ({"raw": b"<html><body>Login</body></html>", "type": "text/html"}, "HTML page"),
        ({"tool_call": True}, "only a tool call"),
        ({"choices": []}, "no choices"),
        ({"reply": '{"steps": [', "finish": False}, "without a finish reason"),
    ],
)
def test_a_hostile_reply_ends_at_a_gate_with_a_json_summary(capsys, one_attempt, item, words):
    with ScriptedServer([item]) as server:
        code, out = autonomous(capsys, server)
    assert code == 1 and out["state"] == "failed" and words in out["error"]


def test_echoed_examples_are_not_answers(capsys, one_attempt):
    with ScriptedServer([ECHO] * 3) as server:
        code, out = autonomous(capsys, server)
        repair = server.requests[1]["messages"]
    assert code == 1 and out["state"] == "failed"
    assert "is the prompt's example, not an answer" in out["error"]
    assert len(repair) == 4 and "prompt's example" in repair[-1]["content"]


def test_unknown_parameter_names_in_configs_are_not_answers(capsys, one_attempt):
    kernel = ROOT / "benchmarks" / "spaces" / "matmul_tiled.cu"
    echo = json.dumps({"configs": [{"param_a": 1, "param_b": 2}], "reasoning": "two sentences on why these"})
    with ScriptedServer([echo] * 3) as server:
        code, out = run_cli(
            capsys,
            "run",
            kernel,
            "--strategy",
            "config-search",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
    assert code == 1 and "unknown parameters param_a, param_b" in out["error"]


def test_resume_after_a_reply_that_failed_its_format_asks_the_llm_again(capsys, one_attempt):
    with ScriptedServer([ECHO] * 3) as server:
        code, out = autonomous(capsys, server)
    assert code == 1 and "prompt's example" in out["error"]
    store = Store(one_attempt / "sessions.db")
    [gate] = [g for g in store.gates(out["session"]) if g.key.startswith("llm:plan:")]
    assert gate.body["text"] == ECHO and gate.decision["choice"] == "stop"
    with ScriptedServer([PLAN]) as server:
        code, again = run_cli(
            capsys,
            "resume",
            out["session"],
            "--auto",
            "--json",
            "--base-url",
            server.url,
            "--model",
            MODEL,
            "--backend",
            "sim",
            "--sim-cache",
            CACHES,
        )
        asked = len(server.requests)
    assert asked == 2  # the plan again, then the step's verdict (which the script no longer answers)
    plan = store.llm_result(out["session"], "plan")
    assert plan["by"] == "llm" and plan["value"] == json.loads(PLAN)
    assert "Unroll the loop" in [s["title"] for s in again["steps"]]  # it went on with the good answer
    assert "validate_step" in again["error"]


def test_every_round_of_repairs_is_named_and_repairs_send_an_excerpt(scripted_llm):
    bad = "x" * 20_000 + ' {"steps": 3}'
    server = scripted_llm([bad, "no json at all", ECHO])
    client = LlmClient(server.url, MODEL, "", backoff_s=0.01)
    with pytest.raises(Exception) as e:
        ask_structured(client, "plan", MSGS, Plan)
    assert "reply 1: steps" in str(e.value) and "reply 2: the reply has no JSON" in str(e.value)
    assert "reply 3: steps.0.title" in str(e.value)
    repair = server.requests[1]["messages"]
    assert repair[:1] == MSGS and len(repair) == 3
    assert len(repair[1]["content"]) < 3200 and "characters left out" in repair[1]["content"]
    assert len(server.requests[2]["messages"]) == 3  # the conversation does not grow with each round


def test_extraction_of_unclosed_brackets_is_bounded():
    with pytest.raises(ExtractError) as e:
        extract_json("[" * 200_000 + "{" * 50_000)
    assert "not closed" in str(e.value)
    assert extract_json("{[" * 1000 + ' {"a": 1} ') == {"a": 1}
    with pytest.raises(ExtractError):
        extract_json("```" * 80_000)  # fences on one line: once quadratic in the fence pattern
    with pytest.raises(ExtractError) as e:
        extract_json(" " * 300_000 + "{}")
    assert "256 KB limit" in str(e.value)


# -- the gate itself, driven by hand ------------------------------------------------------


class _Engine:
    def __init__(self, store, sid, client):
        self.store, self.sid, self.client = store, sid, client
        self.data = SessionStore(store, sid)
        self.llm_cancel = threading.Event()

    def llm_client(self, key):
        return self.client

    def emit(self, *a, **kw):
        pass


def _engine(tmp_path, server):
    store = Store(tmp_path / "s.db")
    sid = store.create_session(kernel_name="k")
    return _Engine(store, sid, LlmClient(server.url, MODEL, "", max_retries=1, backoff_s=0.01))


def test_a_users_answer_that_does_not_parse_comes_back_to_the_user(tmp_path, scripted_llm):
    server = scripted_llm(["no"] * 3)
    engine = _engine(tmp_path, server)
    ask = llm_ask(engine, "plan", "plan", Plan, messages=MSGS)
    gate = next(ask)
    assert gate.kind == "llm_reply" and '"steps"' in gate.body["example"] and "schema" not in gate.body
    assert len(server.requests) == 3
    gate = ask.send(Decision("edit", "my plan: unroll"))
    assert gate.kind == "llm_reply" and gate.body["by_user"] and gate.body["text"] == "my plan: unroll"
    assert gate.body["problems"] and gate.key == "llm:plan:2"
    assert len(server.requests) == 3  # the LLM was not asked again
    with pytest.raises(StopIteration) as done:
        ask.send(Decision("edit", PLAN))
    assert done.value.value.steps[0].title == "Unroll the loop"
    assert engine.store.llm_result(engine.sid, "plan")["by"] == "user"


def _stored(engine, gate, choice=None):
    """The gate as Engine.run stores it: opened, and decided when `choice` is given."""
    engine.store.open_gate(engine.sid, gate.key, gate.kind, gate.title, gate.body)
    if choice:
        engine.store.decide_gate(engine.sid, gate.key, {"choice": choice})


@pytest.mark.parametrize("decided", [None, "stop"])
def test_on_resume_the_llms_bad_reply_is_asked_again_and_the_users_own_answer_comes_back(
    tmp_path, scripted_llm, decided
):
    server = scripted_llm(["no"] * 3 + [PLAN])
    engine = _engine(tmp_path, server)
    gate = next(llm_ask(engine, "plan", "plan", Plan, messages=MSGS))
    _stored(engine, gate, decided)  # left open (the app quit) or stopped at (--auto)
    with pytest.raises(StopIteration) as done:  # the resume: the LLM's failure is asked of it again
        next(llm_ask(engine, "plan", "plan", Plan, messages=MSGS))
    assert len(server.requests) == 4 and done.value.value.steps[0].title == "Unroll the loop"
    assert engine.store.llm_result(engine.sid, "plan")["by"] == "llm"

    engine = _engine(tmp_path / "2", scripted_llm(["no"] * 3))
    ask = llm_ask(engine, "plan", "plan", Plan, messages=MSGS)
    _stored(engine, next(ask), "edit")
    mine = ask.send(Decision("edit", "my plan: unroll"))  # the user's answer, which does not parse
    _stored(engine, mine, decided)
    again = next(llm_ask(engine, "plan", "plan", Plan, messages=MSGS))
    assert again.key == mine.key and again.body["text"] == "my plan: unroll" and again.body["by_user"]


@pytest.mark.parametrize("choice, value", [("skip", None), ("edit", PLAN)])
def test_on_resume_what_the_user_decided_at_a_failed_calls_gate_is_kept(tmp_path, scripted_llm, choice, value):
    server = scripted_llm(["no"] * 3)
    engine = _engine(tmp_path, server)
    ask = llm_ask(engine, "plan", "plan", Plan, messages=MSGS)
    _stored(engine, next(ask), choice)
    with pytest.raises(StopIteration) as first:
        ask.send(Decision(choice, value))
    with pytest.raises(StopIteration) as resumed:
        next(llm_ask(engine, "plan", "plan", Plan, messages=MSGS))
    assert len(server.requests) == 3  # nothing asked again
    assert resumed.value.value == first.value.value and (value is None) == (resumed.value.value is None)


def test_an_llm_call_row_is_written_when_it_starts(tmp_path):
    store = Store(tmp_path / "s.db")
    sid = store.create_session(kernel_name="k")
    row = store.add_llm_call(sid, "plan", {"purpose": "plan", "messages": MSGS, "state": "running", "attempt": 1})
    assert store.llm_calls(sid)[0]["state"] == "running"  # killed here: the row says it never completed
    store.add_llm_call(sid, "plan", {"purpose": "plan", "messages": MSGS, "reply": "ok", "state": "done", "row": row})
    [call] = store.llm_calls(sid)
    assert call["state"] == "done" and call["reply"] == "ok"


def test_ctrl_c_headless_cancels_the_call_in_flight(capsys, hermetic):
    with ScriptedServer([{"trickle": 0.2}]) as server:

        def interrupt():
            while not server.requests:
                threading.Event().wait(0.05)
            threading.Event().wait(0.3)
            os.kill(os.getpid(), signal.SIGINT)

        threading.Thread(target=interrupt, daemon=True).start()
        code, out = autonomous(capsys, server)
    # a stop the session is resumed from (tests/cli/test_signals.py), not a failed call decided by the policy
    assert code == 130 and out["state"] == "stopped" and out["error"] is None
    calls = Store(hermetic / "sessions.db").llm_calls(out["session"])
    assert [c["state"] for c in calls] == ["failed"] and "cancelled" in calls[0]["error"]


def test_llm_timeout_and_retries_reach_the_client(capsys, hermetic):
    (hermetic / "config").mkdir(exist_ok=True)
    (hermetic / "config" / "config.toml").write_text("llm_retries = 2\n")
    with ScriptedServer([{"trickle": 0.1}] * 2) as server:
        code, out = autonomous(capsys, server, "--llm-timeout", "0.5")
        assert len(server.requests) == 2 and server.requests[0]["max_tokens"] == 4096
    assert code == 1 and "within 0.5 s" in out["error"] and "after 2 attempts" in out["error"]


@pytest.mark.parametrize(
    "args, config, words",
    [
        (("--llm-timeout", "0"), "", "--llm-timeout"),
        (("--llm-timeout", "soon"), "", "--llm-timeout"),
        ((), "llm_timeout_s = -1\n", "llm_timeout_s"),
        ((), "llm_retries = 0\n", "llm_retries"),
        ((), 'llm_max_tokens = "many"\n', "llm_max_tokens"),
    ],
)
def test_bad_llm_settings_are_refused(capsys, hermetic, args, config, words):
    (hermetic / "config").mkdir(exist_ok=True)
    (hermetic / "config" / "config.toml").write_text(config)
    try:
        code = main(["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "sim", "--model", "m", *args])
    except SystemExit as e:  # argparse refuses a bad flag itself
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err


class _Raises:
    def __init__(self, error):
        self.error = error

    def complete(self, *a, **kw):
        raise self.error


def test_llm_errors_are_caught_by_type_not_by_class_name(tmp_path):
    from kt_tui.llm.errors import LlmError

    class LlmError_(Exception):  # a foreign class that only shares the name
        pass

    LlmError_.__name__ = "LlmError"
    store = Store(tmp_path / "s.db")
    sid = store.create_session(kernel_name="k")
    gate = next(llm_ask(_Engine(store, sid, _Raises(LlmError("endpoint down"))), "plan", "plan", Plan, messages=MSGS))
    assert gate.kind == "llm_failed" and "endpoint down" in gate.title
    with pytest.raises(LlmError_):
        next(llm_ask(_Engine(store, sid, _Raises(LlmError_("a bug"))), "plan:2", "plan", Plan, messages=MSGS))
