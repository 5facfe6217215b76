"""Issue 21 in a session: the check tested at the first baseline (a stand-in GPU worker answers
test_check), a vacuous check said everywhere and nothing called verified, sessions refused on out
of bounds or a parameter that changes the outputs; one trusted(); accepting a slower kernel."""

import math
from types import SimpleNamespace

import numpy as np
import pytest

from kt_tui.engine import kernel_step
from kt_tui.engine.core import Engine
from kt_tui.engine.events import Decision
from kt_tui.engine.gates import AcceptGate
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.engine.strength import CheckRefused
from kt_tui.engine.summary import session_summary
from kt_tui.kernel import strength
from kt_tui.store import Store

from .test_outcomes import FakeGpu, real_session


class CheckingGpu(FakeGpu):
    def __init__(self, state, **kw):
        super().__init__(**kw)
        self.state, self.tested = state, []

    def test_check(self, source, spec, backend, timeout_s):
        self.tested.append((spec["kernel"], backend))
        return dict(self.state)


def _run(hermetic, state, decide=None):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    gpu = CheckingGpu(state)
    events = []
    engine = Engine(store, sid, gpu, choice, decide or (lambda g: Decision("approve")), events.append)
    return store, sid, gpu, engine, events


def test_a_vacuous_check_is_said_and_nothing_is_called_verified(hermetic):
    state = strength.verdict(["`c` is 1 everywhere (16777216 elements)"], [], changed=["c"])
    gates = []
    store, sid, gpu, engine, events = _run(hermetic, state, lambda g: gates.append(g) or Decision("approve"))
    assert engine.run(sweep) == "finished"
    assert gpu.tested == [("vector_add", "cupy")]  # once, before the sweep gate
    assert gates[0].key == "sweep:1" and gates[0].unverified.startswith("VACUOUS CHECK")  # said at the sweep gate
    summary = session_summary(store, sid)
    assert summary["check"]["state"] == "vacuous" and "`c` is 1 everywhere" in summary["check"]["why"]
    assert summary["best"]["verified"] == ("unchecked: the check proves nothing because `c` is 1 everywhere "
                                           "(16777216 elements)")
    assert summary["unverified"].startswith("VACUOUS CHECK: unchecked: the check proves nothing because")
    notes = [e.data.get("text") for e in events if e.kind == "note"]
    assert any(n and n.startswith("VACUOUS CHECK") for n in notes)
    seen = []
    engine.decide = lambda g: seen.append(g) or Decision("skip")
    engine.ask(AcceptGate(key="accept:x", title="t", recommend=True))
    assert seen[0].vacuous and seen[0].body["vacuous"].startswith("`c` is 1 everywhere")
    assert seen[0].auto()[0] == "skip" and "not accepted" in seen[0].auto()[1]  # --auto keeps no LLM kernel


def test_the_check_is_tested_once_per_session(hermetic):
    store, sid, gpu, engine, _ = _run(hermetic, strength.verdict([], [], changed=["c"]))
    engine.run(sweep)
    Engine(store, sid, gpu, engine.choice, lambda g: Decision("approve")).baseline(engine.original)
    assert len(gpu.tested) == 1 and session_summary(store, sid)["check"]["state"] == "ok"


def test_outputs_found_by_running_are_flagged_with_the_fix(hermetic):
    fixes = strength.output_fixes(["c"], ["c", "a", "b"], ["c", "a"])
    store, sid, gpu, engine, events = _run(hermetic, strength.verdict([], fixes, changed=["c", "a"]))
    engine.run(sweep)
    notes = [e.data.get("text") for e in events if e.kind == "note"]
    assert "outputs: `a` changed but is not in outputs: add it to [outputs] (output = true)" in notes
    assert session_summary(store, sid)["check"]["fixes"] == fixes


def test_out_of_bounds_refuses_the_session_before_the_baseline(hermetic):
    why = "the original kernel accesses memory out of bounds at n=37 (2 error(s) under memcheck): `a`[40] ..."
    store, sid, gpu, engine, _ = _run(hermetic, {"state": "unsafe", "why": why, "refused": why, "fixes": []})
    with pytest.raises(CheckRefused, match="out of bounds at n=37"):
        engine.run(sweep)
    assert store.results(sid) == []  # nothing ran on a kernel that leaves its arrays
    assert store.session(sid)["state"] == "failed" and "`a`[40]" in store.session(sid)["error"]


def test_a_parameter_that_changes_the_outputs_is_refused_without_a_reference_kernel(hermetic):
    state = strength.verdict([], [], changed=["c"], result_params={"filter": "at filter=5 `c` differs"})
    store, sid, gpu, engine, _ = _run(hermetic, state)
    with pytest.raises(CheckRefused, match=r"filter change the original's outputs .*\[reference\] kernel"):
        engine.run(sweep)


def test_run_exits_2_with_the_reason_and_the_check_in_json(hermetic, capsys):
    import json

    from kt_tui.config import load_settings
    from kt_tui.front.commands import _run

    why = "the original kernel accesses memory out of bounds at the spec's size: `b`[16777216] ..."
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    gpu = CheckingGpu({"state": "unsafe", "why": why, "refused": why, "fixes": []})
    code = _run(store, load_settings({"backend": "cupy"}), sid, gpu, choice, as_json=True)
    out, err = capsys.readouterr()
    data = json.loads(out[out.find("{"):])
    assert code == 2 and "`b`[16777216]" in err
    assert data["state"] == "failed" and data["error"] == why and data["check"]["state"] == "unsafe"


# -- one trusted() -------------------------------------------------------------------------------
def test_every_view_ranks_and_plots_by_trusted():
    from kt_tui.ui.results import _rank
    from kt_tui.ui.session_screen import _plotted
    unverified = {"status": "ok", "time_ms": 1.0, "verified": None}
    assert _rank(unverified) == math.inf and _plotted(unverified) is None  # `is not False` let these through
    assert _rank(unverified, True) == 1.0 and _plotted(unverified, True) == 1.0  # the reference itself
    assert _rank(dict(unverified, verified=True)) == 1.0


def test_stored_plot_points_and_the_prompt_take_only_trusted_results(hermetic):
    from kt_tui.engine.strategies.config_search import _prompt_values
    store, sid, gpu, engine, _ = _run(hermetic, strength.verdict([], [], changed=["c"]))
    vid = engine.original
    ok = {"params": {"block_size_x": 64}, "times": [1.0], "status": "ok", "error": None, "source": "measured"}
    store.add_results(sid, vid, "r", [dict(ok, key="256", time_ms=3.0, params={"block_size_x": 256},
                                           verified=None),  # the reference
                                      dict(ok, key="64", time_ms=1.0, verified=None),
                                      dict(ok, key="128", time_ms=2.0, params={"block_size_x": 128}, verified=True)])
    points = {k: t for page in store.plot_pages(sid, reference=(vid, "256")) for _, k, t in zip(*page)}
    assert points == {"256": 3.0, "64": None, "128": 2.0}
    _, spec = engine.version(vid)
    prompt = _prompt_values(engine, vid, "src", spec, 2, 4)
    assert "{'block_size_x': 64}" not in prompt["results"] and "{'block_size_x': 128}" in prompt["results"]


# -- accepting a slower kernel ---------------------------------------------------------------------
def _accept_engine(best_ms, new_ms):
    steps, accepted = {}, []
    return SimpleNamespace(
        best_ms=best_ms, options={"threshold": 0.02}, choice=SimpleNamespace(simulated=False), sid="s",
        store=SimpleNamespace(session=lambda sid: {}), accepted=accepted,
        confirm_best=lambda vid: {"time_ms": new_ms, "params": {"b": 1}, "key": "1", "verified": True,
                                  "status": "ok", "verdicts": []},
        check_sizes=lambda vid, params: [], accept=accepted.append,
        set_step=lambda sid, **f: steps.update({sid: f})), steps


def test_accepting_a_slower_kernel_says_the_best_stays_and_the_report_says_what_happened():
    from kt_tui.export.report import _gate_md
    engine, steps = _accept_engine(1.0, 2.0)
    gen = kernel_step._accept(engine, "1", "t", "v2")
    gate = next(gen)
    assert gate.effect.startswith("this kernel is slower than the current best (2.0000 ms vs 1.0000 ms): accepting "
                                  "keeps it in the plan as accepted, but the best stays at 1.0000 ms")
    with pytest.raises(StopIteration):
        gen.send(Decision("approve"))
    assert steps["1"]["state"] == "accepted" and "slower than the best (1.0000 ms), which stays the best" in \
        steps["1"]["reason"]
    md = "\n".join(_gate_md(1, {"title": gate.title, "kind": "accept", "created": "", "decided": "",
                                "decision": {"choice": "approve", "by": "user"}, "body": gate.body}))
    assert "New best" not in md and "Accepted, but slower: the best stays at 1.0000 ms." in md
    faster, _ = _accept_engine(2.0, 1.0)
    assert next(kernel_step._accept(faster, "1", "t", "v2")).effect == "accepting makes it the new best (1.0000 ms)"


def test_help_says_what_accept_does():
    from kt_tui.ui.keys import GATES
    text = dict(GATES)["accept"]
    assert "keeps it as the new best" not in text and "a slower one leaves the best as it is" in text


def test_a_vacuous_verdict_is_never_verified():
    from kt_tui.engine.verdict import verdict_text
    r = {"status": "ok", "time_ms": 1.0, "verified": True}
    assert verdict_text(r, False) == "verified"
    assert verdict_text(r, False, vacuous="`c` is 0 everywhere") == \
        "unchecked: the check proves nothing because `c` is 0 everywhere"
    assert verdict_text(dict(r, verified=False), False, vacuous="x") == "wrong"
    assert np.isfinite(r["time_ms"])
