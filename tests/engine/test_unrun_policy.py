"""Issue 35 in a session: a check that left more than a third of its wrong variants unrun (gpu/unrun.py)
is said at the sweep gate, in notes, `--json` and the report, and `--auto` accepts no generated kernel
on it unless survivors are allowed, as for a check with a survivor; the refusal says which."""

import json
from types import SimpleNamespace

from kt_tui.engine.events import Decision
from kt_tui.engine.gates import AcceptGate
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.engine.summary import session_summary
from kt_tui.kernel import strength

from .test_mutation_score import _engine

TEXT = (
    "the check ran 7 of 29 wrong variants in its 5 s (22 not run: unknown, not killed): one run of the original "
    "takes 410 ms at the spec's size (nkeys = 1048576; nhashes = 100 — the draft guesses it, bounds a loop); "
    "running them all would take about 17 s: smaller check sizes or scalars would let it run them all"
)
LINE = "the check catches 7 of 7 wrong variants (22 more not run within the time budget)"


def _state(over=True, survivors=False):
    flag = {"ran": 7, "made": 29, "not_run": 22 if over else 3, "budget_s": 5.0, "over": over, "runs": [],
            "need_s": 17.0, "slow_runs": True, "scalars": [], "text": TEXT}  # fmt: skip
    score = {
        "made": 29,
        "counted": 7,
        "killed_before": 7,
        "killed": 7 - survivors,
        "survivors": [{"id": "m03", "kind": "bound", "what": "`<` -> `<=`"}] if survivors else [],
        "equivalent": [],
        "stillborn": [],
        "not_run": ["variant"] * flag["not_run"],
        "strengthening": [],
        "line": LINE,
        "unrun": flag,
    }
    return strength.verdict([], [], changed=["bits"], mutants=score)


def _accept(engine):
    seen = []
    engine.decide = lambda g: seen.append(g) or Decision("skip")
    engine.at_gate(AcceptGate(key="accept:x", title="t", step="1", recommend=True))
    return seen[0]


def test_too_few_run_is_said_everywhere_and_auto_keeps_no_kernel_on_it(hermetic):
    store, sid, gpu, engine, gates, events = _engine(hermetic, _state())
    assert engine.run(sweep) == "finished"
    assert gates[0].check == f"{LINE}; TOO FEW RUN: {TEXT}"
    assert f"check: {LINE}; TOO FEW RUN: {TEXT}" in [e.data.get("text") for e in events if e.kind == "note"]
    assert session_summary(store, sid)["check"]["mutants"]["unrun"]["text"] == TEXT
    gate = _accept(engine)
    choice, why = gate.auto()
    assert choice == "skip" and why == (
        f"step 1: not accepted: {TEXT}; a kernel with the mistake of one not run would be kept unseen; "
        "--allow-survivors (or allow_survivors = true) lets --auto accept it"
    )


def test_allow_survivors_lets_auto_accept_and_a_few_unrun_do_not_refuse(hermetic):
    for k, (state, kw) in enumerate(((_state(), {"allow_survivors": True}), (_state(over=False), {}))):
        store, sid, gpu, engine, gates, events = _engine(hermetic / str(k), state, **kw)
        engine.run(sweep)
        gate = _accept(engine)
        assert gate.survivors is None and gate.auto() == ("approve", None)
        assert ("TOO FEW RUN" in gate.check) == (k == 0)


def test_a_survivor_and_too_few_run_are_both_said():
    from kt_tui.engine.strength import survivors_why

    why = survivors_why(_state(survivors=True))
    assert why.startswith(f"{LINE}: a kernel with such a mistake would be kept; {TEXT}; a kernel with the mistake")


def test_the_report_and_the_gate_say_it():
    from rich.text import Text

    from kt_tui.export.report import _check_md
    from kt_tui.ui.gate_view import _unverified

    b = SimpleNamespace(session={"check_state": json.dumps(_state()), "simulated": 0})
    md = "\n".join(_check_md(b)).replace("\\", "")
    assert "TOO FEW RUN: the check ran 7 of 29 wrong variants in its 5 s" in md
    text = Text()
    _unverified(
        SimpleNamespace(unverified=None, expected=None, check=f"{LINE}; TOO FEW RUN: {TEXT}", survivors="x"), text
    )
    assert "Check: " + LINE in text.plain and text.spans[0].style == "yellow"


def test_auto_keeps_no_kernel_on_a_gpu_check_whose_test_did_not_end_and_allow_survivors_lifts_it(hermetic):
    """A check whose test timed out or failed on a GPU (unchecked) shows nothing about catching a wrong
    kernel: --auto accepts none on it, as on one with a survivor (without a GPU nothing runs to accept)."""
    from kt_tui.engine.strength import survivors_why, unchecked

    state = unchecked("the original kernel could not be run to test the check: the check runs did not report")
    store, sid, gpu, engine, gates, events = _engine(hermetic / "a", state)
    assert engine.run(sweep) == "finished" and not engine.choice.simulated
    choice, why = _accept(engine).auto()
    assert choice == "skip" and why.startswith("step 1: not accepted: check not tested: the original kernel could")
    assert why.endswith("--allow-survivors (or allow_survivors = true) lets --auto accept it")
    assert survivors_why(state) is None  # a replay or no GPU: the check is never tested there
    *_, engine = _engine(hermetic / "b", state, allow_survivors=True)[:4]
    assert engine.run(sweep) == "finished" and _accept(engine).auto() == ("approve", None)
