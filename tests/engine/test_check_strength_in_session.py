"""Issue 21 in a session: the check tested at the first baseline (a stand-in GPU worker answers
test_check), a vacuous check said everywhere and nothing called verified, sessions refused on out
of bounds or a parameter that changes the outputs; one trusted(); accepting a slower kernel."""

import numpy as np
import pytest

from kt_tui.engine.core import Engine
from kt_tui.engine.events import Decision
from kt_tui.engine.gates import AcceptGate
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.engine.strength import CheckRefused
from kt_tui.engine.summary import session_summary
from kt_tui.kernel import strength
from kt_tui.records import Result, replace
from kt_tui.store import Store

from .test_outcomes import FakeGpu, real_session


class CheckingGpu(FakeGpu):
    def __init__(self, state, **kw):
        super().__init__(**kw)
        self.state, self.tested = state, []

    def test_check(self, source, spec, backend, timeout_s, gpu_free=None):
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
    assert summary["best"]["verified"] == (
        "unchecked: the check proves nothing because `c` is 1 everywhere (16777216 elements)"
    )
    assert summary["unverified"].startswith("VACUOUS CHECK: unchecked: the check proves nothing because")
    notes = [e.data.get("text") for e in events if e.kind == "note"]
    assert any(n and n.startswith("VACUOUS CHECK") for n in notes)
    seen = []
    engine.decide = lambda g: seen.append(g) or Decision("skip")
    engine.at_gate(AcceptGate(key="accept:x", title="t", recommend=True))
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
    why = "the original kernel accesses memory out of bounds at n=37 (2 errors under memcheck): `a`[40] ..."
    store, sid, gpu, engine, _ = _run(hermetic, {"state": "unsafe", "why": why, "refused": why, "fixes": []})
    with pytest.raises(CheckRefused, match="out of bounds at n=37"):
        engine.run(sweep)
    assert store.results(sid) == []  # nothing ran on a kernel that leaves its arrays
    assert store.session(sid)["state"] == "failed" and "`a`[40]" in store.session(sid)["error"]


def test_a_parameter_that_changes_the_outputs_is_refused_without_a_reference_kernel(hermetic):
    state = strength.verdict([], [], changed=["c"], result_params={"filter": "at filter=5 `c` differs"})
    store, sid, gpu, engine, _ = _run(hermetic, state)
    with pytest.raises(CheckRefused, match=r"tuning filter changes the original's outputs .*\[reference\] kernel"):
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
    data = json.loads(out[out.find("{") :])
    assert code == 2 and "`b`[16777216]" in err
    assert data["state"] == "failed" and data["error"] == why and data["check"]["state"] == "unsafe"


def test_a_vacuous_verdict_is_never_verified():
    from kt_tui.engine.verdict import verdict_text

    r = Result(key="1", params={}, status="ok", time_ms=1.0, verified=True)
    assert verdict_text(r, False) == "verified"
    assert (
        verdict_text(r, False, vacuous="`c` is 0 everywhere")
        == "unchecked: the check proves nothing because `c` is 0 everywhere"
    )
    assert verdict_text(replace(r, verified=False), False, vacuous="x") == "wrong"
    assert np.isfinite(r.time_ms)


def test_the_report_says_the_check_and_calls_nothing_verified():
    import json
    from types import SimpleNamespace

    from kt_tui.export.report import _check_md, _verdict
    from kt_tui.kernel.spec import parse_spec

    from ..kernel.test_strength import SPEC_TEXT

    state = strength.verdict(["`out` is 1 everywhere (1000 elements)"], ["`cx` changed but is not in outputs: add it"])
    spec = parse_spec(SPEC_TEXT)
    b = SimpleNamespace(
        session={"check_state": json.dumps(state), "simulated": 0}, original={"id": "v0"}, original_spec=spec
    )
    md = "\n".join(_check_md(b)).replace("\\`", "`")  # markdown escapes the backticks
    assert "VACUOUS CHECK: unchecked: the check proves nothing because `out` is 1 everywhere" in md
    assert "- outputs: `cx` changed but is not in outputs" in md
    r = Result(version="v1", key="128,200", params={}, status="ok", time_ms=1.0, verified=True)
    assert _verdict(b, r).startswith("unchecked: the check proves nothing because")
