"""Typed gates and events: each kind is a class with its fields and its --auto decision, stored as the
plain body older versions stored; the UI has a view for each kind and a readable one for a kind it
does not know. tests/fixtures/old_main_sessions.json holds the rows a session database had when
written by the code before typed gates (commit aefde12: an autonomous session stopped at an invalid
LLM reply, a finished sweep)."""

import ast
import io
import json
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console

from kt_tui.engine import events as ev
from kt_tui.engine import gates as g
from kt_tui.engine.events import event_from
from kt_tui.front.headless import make_policy
from kt_tui.store import Store
from kt_tui.ui import gate_view

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer

OLD_ROWS = Path(__file__).resolve().parents[1] / "fixtures" / "old_main_sessions.json"
CACHES = ROOT / "sessions" / "caches"


def old_store(path: Path) -> Store:
    """A database holding the old code's rows, as that code wrote them."""
    store = Store(path)
    rows = json.loads(OLD_ROWS.read_text())
    for s in rows["sessions"]:
        s["kernel_path"] = str(EXAMPLES / "vector_add.cu")
    db = sqlite3.connect(path)
    with db:
        for table, items in rows.items():
            for r in items:
                db.execute(
                    f"INSERT INTO [{table}] ({', '.join(r)}) VALUES ({', '.join('?' * len(r))})", list(r.values())
                )
    db.close()
    return store


def shown(gate: g.Gate) -> str:
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(gate_view.render_gate(gate))
    return console.export_text()


def test_every_key_the_old_code_stored_is_a_field_of_its_gate(tmp_path):
    store = old_store(tmp_path / "sessions.db")
    rows = [row for s in store.sessions() for row in store.gates(s["id"])]
    assert {row.kind for row in rows} == {"sweep", "llm_reply"}
    for row in rows:
        gate = g.gate_from(row.kind, row.key, row.title, row.body)
        assert type(gate) is g.GATES[row.kind] and gate.extra == {}
        assert {k: gate.body[k] for k in row.body} == row.body  # stored again, it says the same


def test_a_session_written_by_the_old_code_resumes_at_its_llm_gate(capsys, tmp_path):
    store = old_store(tmp_path / "sessions.db")
    [old] = [s for s in store.sessions() if s["strategy"] == "autonomous"]
    with ScriptedServer(["{}"] * 3) as server:
        code, out = run_cli(
            capsys,
            "resume",
            old["id"],
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
    # the LLM's reply failed its format: the resume asks again (issue 36, item 6), and the reply ("{}")
    # fails it again, at the call's next gate
    assert asked == 3 and code == 1 and out["state"] == "failed" and out["error"] != old["error"]
    assert store.gate(old["id"], "llm:plan:2").kind == "llm_reply"
    stored = [r for r in json.loads(OLD_ROWS.read_text())["results"] if r["session"] == old["id"]]
    assert len(store.results(old["id"])) == len(stored) > 0  # the start gate's decision replayed: nothing re-run
    row = store.gate(old["id"], "llm:plan:1")
    assert "is the prompt's example" in shown(g.gate_from(row.kind, row.key, row.title, row.body))


def test_stored_bodies_keep_their_keys_and_unknown_ones():
    gate = g.gate_from("llm_reply", "llm:plan:2", "bad", {"key": "plan", "text": "{}", "by_user": True, "later": 1})
    assert isinstance(gate, g.LlmReplyGate) and gate.call == "plan" and gate.by_user
    assert gate.body["key"] == "plan" and gate.body["later"] == 1 and "call" not in gate.body
    assert gate.choices == g.LLM_CHOICES
    gate.unverified = "not verified"
    assert g.gate_from("llm_reply", gate.key, gate.title, gate.body) == gate


@pytest.mark.parametrize(
    "gate, allow, choice, said",
    [
        (g.SweepGate(key="sweep:1", title="t"), False, "approve", None),
        (g.SweepGate(key="sweep:2", title="t", after_stop=True), False, "stop", None),
        (g.PlanGate(key="plan", title="t", manual="write it"), False, "stop", "manual mode"),
        (g.StepGate(key="step:1", title="t", verdict={"valid": False, "reason": "no"}), False, "skip", None),
        (g.StepGate(key="step:1", title="t", verdict={"valid": True, "reason": "yes"}), False, "approve", None),
        (
            g.KernelGate(key="kernel:1", title="t", step="1", flags=[{"kind": "include", "line": 1, "message": "m"}]),
            False,
            "skip",
            "refusing flagged code for step 1 (include)",
        ),
        (
            g.KernelGate(key="kernel:1", title="t", flags=[{"kind": "include", "line": 1, "message": "m"}]),
            True,
            "approve",
            None,
        ),
        (g.AcceptGate(key="accept:1", title="t", recommend=False), False, "skip", None),
        (g.AcceptGate(key="accept:1", title="t", recommend=True), False, "approve", None),
        (g.ConfigsGate(key="batch:1", title="t"), False, "approve", None),
        (g.SpaceGate(key="space:1", title="t"), False, "approve", None),
        (g.LlmFailedGate(key="llm:plan:1", title="t"), False, "stop", None),
        (g.gate_from("from_a_newer_version", "x:1", "t", {}), False, "stop", "does not know"),
    ],
)
def test_the_auto_policy_is_the_gates_own(capsys, gate, allow, choice, said):
    decision = make_policy(allow)(gate)
    assert decision.choice == choice and decision.by == "policy"
    err = capsys.readouterr().err
    assert (said in err) if said else err == ""


def test_a_policy_stop_fails_the_session_only_where_a_human_was_needed():
    assert g.LlmReplyGate(key="k", title="bad reply").stop_error() == "bad reply"
    assert g.KernelGate(key="k", title="t", manual="write the kernel").stop_error() == "write the kernel"
    assert g.PlanGate(key="k", title="t").stop_error() is None and g.SweepGate(key="k", title="t").stop_error() is None


def test_every_gate_kind_has_its_own_view():
    missing = [kind for kind, cls in g.GATES.items() if cls not in gate_view.VIEWS]
    assert missing == [], f"gate kinds with no view in ui/gate_view.py: {missing}"
    for cls in g.GATES.values():
        assert "edit" not in cls.default_choices or gate_view.VIEWS[cls].editor, (
            f"{cls.kind} can be edited but has no editor"
        )


def test_a_second_view_for_a_kind_fails_loudly():
    with pytest.raises(ValueError, match="two views"):
        gate_view.view(g.SweepGate)(lambda *a: None)


def test_a_gate_kind_the_ui_does_not_know_is_shown_readably():
    gate = g.gate_from("from_a_newer_version", "x:1", "Do the new thing?", {"what": "something new"})
    assert gate.kind == "from_a_newer_version" and gate.body == {"what": "something new"}
    text = shown(gate)
    assert "Do the new thing?" in text and "does not know how to show it" in text and "something new" in text
    assert gate_view.view_for(gate).editor is None


def test_a_plugins_own_gate_class_gets_its_bases_view():
    class Baseline(g.SweepGate):
        pass

    gate = Baseline(key="b:1", title="Measure once?", version="v0", total=1)
    assert gate_view.view_for(gate) is gate_view.VIEWS[g.SweepGate] and "1 configuration " in shown(gate)


def _emitted_names() -> set[str]:
    """Every event name the engine emits: the first argument of each `emit("name", ...)` in engine/."""
    names = set()
    for path in (ROOT / "kt_tui" / "engine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", getattr(node.func, "id", "")) == "emit"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names.add(node.args[0].value)
    return names


def test_every_event_the_engine_emits_has_a_class():
    names = _emitted_names()
    assert {"result", "run", "note", "finished", "llm_delta"} <= names
    assert names - set(ev.EVENTS) == set(), "events emitted with no class in engine/events.py"


def test_events_are_typed_and_keep_their_plain_data():
    run = event_from("run", {"run": "tune:1", "version": "v1", "kind": "tune", "total": 6, "backend": "sim"})
    assert isinstance(run, ev.RunStarted) and run.run_kind == "tune" and run.kind == "run"
    assert run.data == {"run": "tune:1", "version": "v1", "kind": "tune", "total": 6, "backend": "sim"}
    begin = event_from("begin", {"run": "r", "key": "32", "params": {"x": 32}, "worker": "node2"})
    assert isinstance(begin, ev.Begin) and begin.extra == {"worker": "node2"} and begin.data["worker"] == "node2"
    other = event_from("a_plugins_event", {"x": 1})
    assert isinstance(other, ev.UnknownEvent) and other.kind == "a_plugins_event" and other.data == {"x": 1}


def test_each_gate_parses_its_own_edit():
    from kt_tui.engine.gates import ConfigsGate, PlanGate, StepGate, SweepGate

    plan = PlanGate(key="plan", title="t").parse_edit("1. Unroll the loop\n   by four\n2. Tile")
    assert plan == [("Unroll the loop", "by four"), ("Tile", "")]
    assert StepGate(key="step:1", title="t").parse_edit("Step 1: Unroll\nby four") == ("Unroll", "by four")
    prompt = StepGate(key="step:a", title="t", prompt="p").parse_edit("do it")
    assert prompt == ("prompt", "do it\n\n```cuda\n{kernel_string}\n```\n")
    assert SweepGate(key="s", title="t").parse_edit("max_configs = 5\n") == {"max_configs": 5}
    with pytest.raises(ValueError, match="unknown setting"):
        SweepGate(key="s", title="t").parse_edit("budget = 5\n")
    assert ConfigsGate(key="c", title="t").parse_edit('{"a": 1}\n\n{"a": 2}\n') == [{"a": 1}, {"a": 2}]
    with pytest.raises(ValueError, match="not one JSON object per line"):
        ConfigsGate(key="c", title="t").parse_edit("{a}")


def test_a_policy_decision_stores_who_decided_and_why(capsys, hermetic):
    from kt_tui.store import Store

    from ..conftest import EXAMPLES, ROOT
    from ..helpers import run_cli

    code, out = run_cli(
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
        ROOT / "sessions" / "caches",
        "--llm",
        "none",
    )
    store = Store(hermetic / "sessions.db")
    assert out["state"] == "waiting"
    decision = store.gate(out["session"], "plan").decision
    assert decision["by"] == "policy" and "manual mode (no LLM)" in decision["why"]
    start = store.gate(out["session"], "start").decision
    assert start["by"] == "policy" and start["why"] is None


def test_each_gate_says_itself_in_the_report():
    from kt_tui.engine.gates import AcceptGate, KernelGate, PlanGate

    accept = AcceptGate(key="accept:1", title="t", new_ms=1.0, current_ms=2.0, recommend=True, effect="kept")
    lines = accept.summary_md({"choice": "approve"})
    assert lines[:4] == ["Candidate 1.0000 ms against the best so far 2.0000 ms; recommended: accept", "", "kept", ""]
    assert "Accepted: the new best." in lines
    kernel = KernelGate(key="kernel:1", title="t", explanation="why *this*", compile={"ok": False, "reason": "boom"})
    assert kernel.summary_md() == ["why \\*this\\*", "", "Did not compile: boom", ""]
    plan = PlanGate(key="plan", title="t", text="1. a")
    assert plan.summary_md({"choice": "edit", "value": "1. b"})[:2] == ["What was edited:", ""]
    assert plan.summary_md({"choice": "approve"}) == []
