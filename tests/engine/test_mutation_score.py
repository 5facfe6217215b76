"""Issue 35 in a session, with a stand-in GPU worker answering test_check: the mutation score at the
sweep gate, in notes, `--json` and the report; `--auto` accepts no generated kernel on a check with
survivors unless allowed; the stronger inputs the check kept run in every later check of a kernel;
a spec blamed for its launch stops the session (exit 2) and `spec --check` says why."""

import json
from types import SimpleNamespace

import numpy as np

from kt_tui.engine.core import Engine
from kt_tui.engine.events import Decision
from kt_tui.engine.gates import AcceptGate
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.engine.summary import session_summary
from kt_tui.gpu.protocol import CheckJob
from kt_tui.kernel import strength
from kt_tui.store import Store

from .test_check_strength_in_session import CheckingGpu
from .test_outcomes import real_session

LINE = "the check catches 18 of 20 wrong variants; these 2 survive: line 3:11: `<` -> `<=` in `if (i < n)`; line 3:20: `a[i]` -> `(a[i] & 0x7f)`"
CASE = {"label": "a second seed", "sizes": {"n": 16777216}, "args": {"a": {"seed": 1001}, "b": {"seed": 1001}}}


def _state(survivors=True):
    score = {
        "made": 22,
        "counted": 20,
        "killed_before": 17,
        "killed": 18 if survivors else 20,
        "survivors": [{"id": "m03", "kind": "bound", "what": "line 3:11: `<` -> `<=` in `if (i < n)`"}] * 2
        if survivors
        else [],
        "equivalent": ["line 3:5: `+` -> `-` ...: compiles to the same code as the original (sm_90)"],
        "stillborn": [],
        "not_run": [],
        "strengthening": [{"label": "a second seed", "kept": True, "why": "kills m07"}],
        "line": LINE if survivors else "the check catches 20 of 20 wrong variants",
    }
    return strength.verdict([], [], changed=["c"], mutants=score, cases=[CASE])


def _engine(hermetic, state, **kw):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    gpu, gates, events = CheckingGpu(state), [], []
    engine = Engine(store, sid, gpu, choice, lambda g: gates.append(g) or Decision("approve"), events.append, **kw)
    return store, sid, gpu, engine, gates, events


def test_the_score_is_said_at_the_sweep_gate_in_notes_json_and_auto_keeps_no_kernel_with_survivors(hermetic):
    store, sid, gpu, engine, gates, events = _engine(hermetic, _state())
    assert engine.run(sweep) == "finished"
    assert gates[0].key == "sweep:1" and gates[0].check == LINE + " (with stronger inputs: a second seed)"
    assert gates[0].survivors.startswith(LINE + ": a kernel with such a mistake would be kept; --allow-survivors")
    notes = [e.data.get("text") for e in events if e.kind == "note"]
    assert f"check: {LINE} (with stronger inputs: a second seed)" in notes
    assert "check: stronger inputs a second seed: kept, kills m07" in notes
    check = session_summary(store, sid)["check"]
    assert check["mutants"]["line"] == LINE and check["cases"] == ["a second seed"]
    assert (check["mutants"]["killed_before"], check["mutants"]["killed"], check["mutants"]["counted"]) == (17, 18, 20)
    seen = []
    engine.decide = lambda g: seen.append(g) or Decision("skip")
    engine.at_gate(AcceptGate(key="accept:x", title="t", step="1", recommend=True))
    choice, why = seen[0].auto()
    assert choice == "skip" and why.startswith(f"step 1: not accepted: {LINE}")


def test_allowed_survivors_or_none_leave_the_threshold_to_decide(hermetic):
    for state, kw in ((_state(), {"allow_survivors": True}), (_state(survivors=False), {})):
        store, sid, gpu, engine, gates, events = _engine(hermetic / str(len(kw)), state, **kw)
        engine.run(sweep)
        seen = []
        engine.decide = lambda g, seen=seen: seen.append(g) or Decision("skip")
        engine.at_gate(AcceptGate(key="accept:x", title="t", step="1", recommend=True))
        assert seen[0].survivors is None and seen[0].auto() == ("approve", None)
        assert seen[0].check.startswith("the check catches")


def test_the_cases_the_check_kept_run_in_every_later_check_of_a_kernel(hermetic):
    store, sid, gpu, engine, gates, events = _engine(hermetic, _state())
    engine.run(sweep)
    source, spec = engine.version(engine.original)
    vid = engine.new_version(source + "\n// generated\n", spec, engine.original, "step 1")
    checks = engine.check_sizes(vid, {"block_size_x": 128})
    job = next(j for j in gpu.jobs if isinstance(j, CheckJob))
    assert job.sizes[-1] == CASE and [c.label for c in checks][-2:] == ["a second seed", "memcheck"]
    assert [e["label"] for e in job.sizes[:-1]] == [e["label"] for e in spec.extra_sizes()]


def test_the_worker_runs_a_kept_case_on_its_own_inputs_for_the_kernel_and_the_reference(monkeypatch):
    from kt_tui.gpu import checking
    from kt_tui.kernel.spec import parse_spec

    from ..helpers import check_device, tuner_on
    from ..kernel.test_strength import KERNEL, SPEC_TEXT

    spec = parse_spec(SPEC_TEXT)
    seen = []

    def run_outputs(s, params):
        seen.append((s.args[1].seed, s.sizes["n"]))
        return {"out": np.arange(s.sizes["n"], dtype=np.int32) * (s.args[1].seed == 7)}

    monkeypatch.setattr(checking, "_REFS", {})
    case = {"label": "a second seed", "sizes": dict(spec.sizes), "args": {"cx": {"seed": 7}}}
    events = []
    job = CheckJob(
        run_id="c",
        source=KERNEL,
        spec=spec.to_dict(),
        ref_source=KERNEL,
        ref_spec=spec.to_dict(),
        ref_params=spec.baseline_params(),
        backend="cupy",
        sizes=[{"label": "n=37", "sizes": {"n": 37}}, case],
        configs=[{"block_size_x": 128, "max_iter": 100}],
    )
    tuner_on(check_device(run_outputs)).run(job, lambda kind, payload: events.append((kind, payload)), 60)
    assert seen == [(1, 37), (1, 37), (7, 1000), (7, 1000)]  # the reference and the kernel, each on the case's inputs
    assert [(p["label"], p["status"]) for k, p in events if k == "check"] == [("n=37", "ok"), ("a second seed", "ok")]


def test_a_blamed_spec_stops_the_session_with_exit_2_and_the_numbers(hermetic, capsys):
    from kt_tui.config import load_settings
    from kt_tui.front.commands import _run

    why = (
        "the original kernel's outputs depend on its block size: at block_size_x=32 `c` differs in 100 of 16777216 "
        "elements (largest difference 3, first at c[0]) from its baseline's (block_size_x=256). The spec's launch"
    )
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    gpu = CheckingGpu(strength.verdict([], [], changed=["c"], blame=why, refused=why))
    code = _run(store, load_settings({"backend": "cupy"}), sid, gpu, choice, as_json=True)
    out, err = capsys.readouterr()
    data = json.loads(out[out.find("{") :])
    assert code == 2 and "depend on its block size" in err
    assert data["state"] == "failed" and data["check"]["blame"] == why and data["best"] is None


def test_spec_check_says_the_score_what_survives_and_blames_the_spec(monkeypatch, capsys):
    from kt_tui.front import spec_cmd

    monkeypatch.setattr(spec_cmd, "gpu_backend", lambda *a, **k: ("pycuda", ""))
    kf = SimpleNamespace(source="src", path="k.cu")
    spec = SimpleNamespace(
        kernel="k",
        compiler_options=[],
        tune_params={},
        defines={},
        defines_only=False,
        extra_sizes=lambda: [{"label": "n=37"}],
    )
    state = {**_state(), "notes": [], "seconds": 7.5}
    monkeypatch.setattr(spec_cmd.checkrun, "check_strength", lambda *a, **k: state)
    said = spec_cmd.test_check(SimpleNamespace(backend=None), kf, spec)
    assert said.startswith("; check tested on pycuda in 7.5 s: memcheck clean at 2 sizes")
    assert f"; {LINE} (with stronger inputs: a second seed)" in said
    assert "; stronger inputs a second seed: kept, kills m07" in said
    assert "; a kernel with line 3:11: `<` -> `<=` in `if (i < n)` would pass this check" in said
    assert "not counted: 1 equivalent (the same compiled code), 0 stillborn" in said
    monkeypatch.setattr(spec_cmd.checkrun, "refusal", lambda *a: "")
    blamed = {**state, "blame": "two runs of the original kernel at its baseline give different outputs"}
    monkeypatch.setattr(spec_cmd.checkrun, "check_strength", lambda *a, **k: blamed)
    assert spec_cmd.test_check(SimpleNamespace(backend=None), kf, spec) is None
    assert capsys.readouterr().err.startswith("kt-tui: k.cu: two runs of the original kernel")


def test_the_report_gives_the_score_the_survivors_and_the_stronger_inputs():
    from kt_tui.export.report import _check_md

    b = SimpleNamespace(session={"check_state": json.dumps(_state()), "simulated": 0})
    md = "\n".join(_check_md(b))
    for c in "`<>_[]":  # markdown escapes them
        md = md.replace("\\" + c, c)
    assert f"Mutation score: {LINE} (with stronger inputs: a second seed)." in md
    assert "- survives: a kernel with line 3:11: `<` -> `<=` in `if (i < n)` would pass this check" in md
    assert "- stronger inputs a second seed: kept, kills m07" in md
    assert "- equivalent (not counted): line 3:5" in md


def test_a_generated_kernel_is_verified_only_once_the_checks_test_is_done(hermetic):
    import time

    from kt_tui.engine.strength import CheckInFlight, kept_cases, measure_again

    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    gpu = CheckingGpu(_state())
    engine = Engine(store, sid, gpu, choice, lambda g: Decision("approve"))
    engine.baseline(engine.original)
    measure_again(engine)

    def slow(*a, gpu_free=None):
        time.sleep(0.5)
        return {**_state(), "cases": [CASE, {**CASE, "label": "later"}]}

    engine.check_in_flight = CheckInFlight(slow)
    source, spec = engine.version(engine.original)
    vid = engine.new_version(source + "\n// generated\n", spec, engine.original, "step 1")
    engine.verify(vid)
    assert engine.check_in_flight is None and [c["label"] for c in kept_cases(engine.data)] == [
        "a second seed",
        "later",
    ]


def test_an_llm_kernel_memcheck_finds_out_of_bounds_is_not_verified_whatever_its_outputs(hermetic, monkeypatch):
    from kt_tui.engine.checks import first_failure
    from kt_tui.gpu import sanitize
    from kt_tui.gpu.sanitize import SanitizeReport

    store, sid, gpu, engine, gates, events = _engine(hermetic, _state())
    engine.run(sweep)
    source, spec = engine.version(engine.original)
    vid = engine.new_version(source + "\n// generated\n", spec, engine.original, "step 1")
    calls = []

    def memcheck(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=(), cases=()):
        calls.append((params, more, cases))
        text = "========= Invalid __global__ read of size 4 bytes\n=========     at vector_add+0x70\n"
        return SanitizeReport(tool, False, 1, text=text, sizes=sizes)

    monkeypatch.setattr(sanitize, "sanitize", memcheck)
    checks = engine.check_sizes(vid, {"block_size_x": 128})
    bad = first_failure(checks)
    assert bad is not None and bad.label == "memcheck" and bad.status == "unsafe"
    assert bad.reason.startswith(f"memcheck: the generated kernel {vid} at 128 accesses memory out of bounds")
    assert "Invalid __global__ read" in bad.reason and "original" not in bad.reason
    assert len(calls[0][2]) == 1 and {a.name: a.seed for a in calls[0][2][0].args}["a"] == 1001  # the kept case
    assert calls[0][0]["block_size_x"] == 128 and calls[0][1] == [e["sizes"] for e in spec.extra_sizes()]
    assert [j for j in gpu.jobs if j.run_id.startswith(f"check:{vid}:")]  # the sizes' runs went on beside it
    assert [c.label for c in checks][-1] == "memcheck" and not [c for c in checks[:-1] if c.ok is False]
    again = first_failure(engine.check_sizes(vid, {"block_size_x": 128}))
    assert again is not None and again.reason == bad.reason and len(calls) == 1  # stored, not run twice
    assert engine.check_sizes(engine.original, {"block_size_x": 128}) and len(calls) == 1  # the original: not here


def test_a_memcheck_that_could_not_tell_is_tried_again_and_a_stopped_session_does_not_wait_for_one(
    hermetic, monkeypatch
):
    import threading

    from kt_tui.gpu import sanitize
    from kt_tui.gpu.sanitize import SanitizeReport

    store, sid, gpu, engine, gates, events = _engine(hermetic, _state())
    engine.run(sweep)
    source, spec = engine.version(engine.original)
    vid = engine.new_version(source + "\n// generated\n", spec, engine.original, "step 1")
    answers = [
        SanitizeReport("memcheck", None, reason="compute-sanitizer not found"),
        SanitizeReport("memcheck", True, 0),
    ]
    monkeypatch.setattr(sanitize, "sanitize", lambda *a, **k: answers.pop(0))
    first = engine.check_sizes(vid, {"block_size_x": 128})[-1]
    assert (first.label, first.ok, first.reason) == ("memcheck", None, "memcheck not run: compute-sanitizer not found")
    again = engine.check_sizes(vid, {"block_size_x": 128})[-1]
    assert (again.label, again.ok) == ("memcheck", True) and answers == []  # asked again: the first could not tell
    release = threading.Event()
    monkeypatch.setattr(sanitize, "sanitize", lambda *a, **k: release.wait() and SanitizeReport("memcheck", True, 0))
    engine.interrupted = "Ctrl-C"
    try:
        stopped = engine.check_sizes(vid, {"block_size_x": 256})[-1]  # returns: nothing waits for the sanitizer
    finally:
        release.set()
    assert (stopped.ok, stopped.reason) == (None, "memcheck not run: the session was stopped")
