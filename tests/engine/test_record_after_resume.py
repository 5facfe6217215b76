"""The record says what happened, after a resume too: who decided (you, the autopilot, the policy)
and what (a title or a description edit, a reject or a skip) are stored with each decision and
replayed as they were, and an accepted step's text is worked out from the times it was asked with.
The LLM replies here are scripted (tests/scripted/), replayed on caches recorded on an NVIDIA H200."""

import json

from kt_tui.engine.gates import AcceptGate, StepGate
from kt_tui.export.report import report_markdown
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer
from .test_autonomous import CACHES, replies

SIM = ("--backend", "sim", "--sim-cache", CACHES)


def _record(store: Store, sid: str) -> tuple[list, list]:
    steps = [(s["id"], s["title"], s["state"], s["reason"]) for s in store.steps(sid)]
    gates = [(g.key, json.dumps(g.decision, sort_keys=True)) for g in store.gates(sid)]
    return steps, gates


def _matmul_session(capsys, hermetic) -> tuple[str, Store]:
    with ScriptedServer(replies("matmul")) as server:
        code, out = run_cli(
            capsys, "run", EXAMPLES / "matmul.cu", "--strategy", "autonomous", "--auto", "--json", *SIM,
            "--base-url", server.url, "--model", MODEL,
        )  # fmt: skip
    assert code == 0 and out["state"] == "finished", out
    return out["session"], Store(hermetic / "sessions.db")


def _stopped_after_its_gates(store: Store, sid: str) -> None:
    """As a session stopped after its last decision: a resume replays every stored decision."""
    store.update_session(sid, state="stopped")


def test_a_resume_replays_the_record_unchanged(capsys, hermetic):
    sid, store = _matmul_session(capsys, hermetic)
    before = _record(store, sid)
    steps = {s[0]: s for s in before[0]}
    # step 1 was the best when it was accepted; step 3 then beat it
    assert steps["1"][2] == "accepted" and "stays the best" not in steps["1"][3]
    assert steps["3"][2] == "accepted" and "stays the best" not in steps["3"][3]
    assert steps["4"][2] == "skipped" and steps["4"][3].startswith("not a kernel change")
    _stopped_after_its_gates(store, sid)
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json", *SIM, "--llm", "none")
    assert code == 0 and out["state"] == "finished", out
    after = _record(store, sid)
    assert after[0] == before[0]  # every step's state and reason, replayed
    assert after[1] == before[1]  # every decision, with who took it
    decisions = {g.key: g.decision for g in store.gates(sid)}
    assert decisions["step:4"]["by"] == "policy" and decisions["accept:1"]["by"] == "policy"


def test_an_accept_gate_names_its_choices_and_the_report_says_reject(capsys, hermetic):
    sid, store = _matmul_session(capsys, hermetic)
    g = store.gate(sid, "accept:1")
    fields = {k: v for k, v in g.body.items() if k in AcceptGate.__dataclass_fields__}
    gate = AcceptGate(key=g.key, title=g.title, **fields)
    assert [gate.choice_name(c) for c in ("skip", "approve", "stop")] == ["reject", "accept", "stop"]
    assert g.decision["as"] == "accept"
    store.decide_gate(sid, "accept:1", {"choice": "skip", "by": "user", "as": "reject"})  # as `k` at that gate
    from kt_tui.export.bundle import load_bundle

    md = report_markdown(load_bundle(store, sid), store)
    section = md[md.index("Accept step 1?") :]
    assert "decision: **reject** by you" in section[:400]


def test_a_title_edit_is_stored_as_a_title_edit():
    gate = StepGate(key="step:2", title="Step 2: Tile the loop", step="2", description="Use shared memory.")
    from kt_tui.engine.edits import decision_record, edit_diff

    record = decision_record(gate, {"choice": "edit", "value": "Tile the k loop\nUse shared memory.", "by": "user"})
    diff = edit_diff(record["before"], record["value"])
    assert "-Tile the loop" in diff and "+Tile the k loop" in diff
    assert "Use shared memory" not in [line[1:] for line in diff.splitlines() if line[:1] in "+-"]
    assert gate.edited_parts("Tile the k loop\nUse shared memory.") == "title"
    assert gate.edited_parts("Tile the loop\nUse registers.") == "description"
    assert gate.edited_parts("New\nNew text") == "title and description"


def test_a_step_the_autopilot_skipped_says_so_after_a_resume():
    from kt_tui.engine.gates import Decision
    from kt_tui.engine.strategies.common import skipped_why

    assert skipped_why(Decision("skip", by="policy"), "not a kernel change: x") == "not a kernel change: x"
    assert skipped_why(Decision("skip", by="autopilot"), "not a kernel change: x").endswith("(autopilot)")
    assert skipped_why(Decision("skip", by="user"), "not a kernel change: x") == "skipped by the user"


def test_a_resume_whose_backend_is_refused_names_the_session(capsys, hermetic):
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    sid = out["session"]
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json", "--backend", "pycuda")
    assert code == 2 and out["state"] == "error" and out["session"] == sid and "pycuda" in out["error"]
