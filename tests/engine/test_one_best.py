"""Issue 35 item 5: one best. `--json`, the export, the engine (the table's star) and the report name
the same best: the fastest trusted result of an accepted version; a rejected or failed step's kernel
is never it, not even within 2 % of the best or faster."""

from kt_tui.engine import kernel_step
from kt_tui.engine.core import Engine
from kt_tui.engine.events import Decision
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.engine.summary import session_summary
from kt_tui.export.bundle import load_bundle
from kt_tui.store import Store

from .test_outcomes import FakeGpu, real_session


def _step(engine, step_id, ms):
    """A generated version of the original with one trusted result `ms`, its step running."""
    source, spec = engine.version(engine.original)
    vid = engine.new_version(source + f"\n// step {step_id}\n", spec, engine.original, f"step {step_id}")
    ok = {"params": {"block_size_x": 128}, "times": [ms], "status": "ok", "error": None, "source": "measured"}
    engine.data.add_results(vid, f"tune:{step_id}", [dict(ok, key="128", time_ms=ms, verified=True)])
    engine.set_step(step_id, title=f"step {step_id}", state="running", version=vid)
    return vid


def _everyone_names(store, sid, engine):
    summary = session_summary(store, sid)["best"]
    bundle = load_bundle(store, sid).best
    engine.refresh_best()
    row = store.session(sid)
    return {
        (summary["kernel_version"], summary["time_ms"]),
        (bundle.version, bundle.time_ms),
        (row["best_version"], row["best_ms"]),
    }


def test_a_rejected_step_within_2_percent_or_a_failed_faster_one_is_never_the_best(hermetic):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    engine = Engine(store, sid, FakeGpu(), choice, lambda g: Decision("approve"))
    assert engine.run(sweep) == "finished"
    assert _everyone_names(store, sid, engine) == {(engine.original, 0.2)}

    close = _step(engine, "1", 0.198)  # 1 % faster: not the 2 % the accept gate asks for
    accept = kernel_step._accept(engine, "1", "step 1", close)
    gate = next(accept)
    assert not gate.recommend
    try:
        accept.send(Decision("skip"))
    except StopIteration:
        pass
    assert next(s for s in store.steps(sid) if s["id"] == "1")["state"] == "rejected"
    failed = _step(engine, "2", 0.05)  # far faster, but its step failed
    engine.set_step("2", state="failed", reason="wrong result at n=37")
    assert {close, failed}.isdisjoint(v for v, _ in _everyone_names(store, sid, engine))
    assert _everyone_names(store, sid, engine) == {(engine.original, 0.2)}

    engine.accept(close)  # once accepted it is the best everywhere
    engine.set_step("1", state="accepted")
    assert _everyone_names(store, sid, engine) == {(close, 0.198)}


def test_an_original_the_check_refused_gives_no_best_to_json_or_the_export(hermetic):
    """--json names no best when the check refused the original (its times were taken beside that
    test); the export, which asks the same function, names none either and says why."""
    import pytest

    from kt_tui.engine.strength import CheckRefused
    from kt_tui.export.bundle import ExportError
    from kt_tui.export.export import export_session

    from .test_check_beside import _session

    why = "the original kernel accesses memory out of bounds at n=37 (2 errors under memcheck): `a`[40] ..."
    store, sid, _, engine = _session(hermetic, {"state": "unsafe", "why": why, "refused": why, "fixes": []})
    with pytest.raises(CheckRefused):
        engine.run(sweep)
    assert store.count_results(sid) > 0 and session_summary(store, sid)["best"] is None
    with pytest.raises(ExportError, match=r"the original kernel was refused \(.*out of bounds at n=37"):
        export_session(store, sid, hermetic / "out")
    assert not (hermetic / "out").exists()


def test_the_reports_distance_to_the_limit_takes_each_versions_fastest_trusted_result(hermetic):
    """The report's table and roofline (export/report.py) place each version by the result the table
    ranks first, trusted(): a faster result nothing verified is not that version's best."""
    from kt_tui.export.report import _roofline_results

    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    engine = Engine(store, sid, FakeGpu(), choice, lambda g: Decision("approve"))
    assert engine.run(sweep) == "finished"
    vid = _step(engine, "1", 0.15)  # trusted
    ok = {"params": {"block_size_x": 64}, "times": [0.01], "status": "ok", "error": None, "source": "measured"}
    engine.data.add_results(vid, "tune:1b", [dict(ok, key="64", time_ms=0.01, verified=None)])  # unchecked
    engine.accept(vid)
    engine.set_step("1", state="accepted")
    points = {label: r.time_ms for label, r in _roofline_results(load_bundle(store, sid))}
    assert points["step 1 best"] == 0.15
