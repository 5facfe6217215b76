"""The engine: gates are stored before they are asked, decisions replay on resume, rows are
committed before anyone hears about them."""

from pathlib import Path

from kt_tui.config import load_settings
from kt_tui.engine.core import Engine
from kt_tui.engine.events import Decision
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.front.session import load_kernel_spec, new_session, pick_backend, read_kernel_file
from kt_tui.gpu.tuner import Tuner
from kt_tui.kernel.spec import version_ids
from kt_tui.store import Store

from ..conftest import EXAMPLES


def open_session(store, name="vector_add"):
    settings = load_settings({"backend": "sim"})
    kf = read_kernel_file(EXAMPLES / f"{name}.cu")
    _, spec = load_kernel_spec(kf, None, None)
    gpu = Tuner()
    choice = pick_backend(settings, gpu, spec.kernel, version_ids(kf.source, spec), Path(kf.path))
    return new_session(store, settings, kf, spec, choice), gpu, choice


def sweep_stopped_at(store, results: int, decide, options=None) -> tuple[str, str]:
    """A matmul sweep (sim) whose run the user stops (`x`) once `results` are stored: (sid, its end state)."""
    sid, gpu, choice = open_session(store, "matmul")
    holder = {}

    def on_event(e):
        if e.kind == "result" and store.count_results(sid) == results:
            holder["engine"].request_stop()

    holder["engine"] = engine = Engine(store, sid, gpu, choice, decide, on_event, options=options)
    try:
        return sid, engine.run(sweep)
    finally:
        gpu.close()


def test_leaving_at_a_gate_keeps_it_pending_and_resume_asks_it_again(hermetic):
    store = Store(hermetic / "s.db")
    sid, gpu, choice = open_session(store)
    asked = []
    state = Engine(store, sid, gpu, choice, lambda g: asked.append(g.key)).run(sweep)
    assert state == "waiting" and asked == ["sweep:1"]
    assert store.gate(sid, "sweep:1").state == "pending"
    assert store.results(sid) == []

    asked.clear()
    state = Engine(store, sid, gpu, choice, lambda g: asked.append(g.key) or Decision("approve")).run(sweep)
    gpu.close()
    assert state == "finished" and asked == ["sweep:1"]
    assert len(store.results(sid)) == 6
    assert store.gate(sid, "sweep:1").decision["choice"] == "approve"


def test_each_result_is_in_the_store_before_its_event(hermetic):
    store = Store(hermetic / "s.db")
    sid, gpu, choice = open_session(store, "reduction")
    seen = []

    def on_event(e):
        if e.kind == "result":
            keys = {r.key for r in Store(hermetic / "s.db").results(sid)}  # another connection
            seen.append(e.data["result"].key in keys)

    Engine(store, sid, gpu, choice, lambda g: Decision("approve"), on_event).run(sweep)
    gpu.close()
    assert len(seen) == 25 and all(seen)


def test_stop_mid_sweep_then_resume_measures_nothing_twice(hermetic, monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.05")
    store = Store(hermetic / "s.db")
    sid, gpu, choice = open_session(store, "matmul")
    holder = {}

    def on_event(e):
        if e.kind == "result" and len(store.results(sid)) == 5:
            holder["engine"].request_stop()

    decisions = iter([Decision("approve"), Decision("stop")])
    holder["engine"] = engine = Engine(store, sid, gpu, choice, lambda g: next(decisions), on_event)
    assert engine.run(sweep) == "stopped"
    first = {r.key: r.timestamp for r in store.results(sid)}
    assert 5 <= len(first) < 17
    assert store.run(sid, "sweep:1").state == "stopped"

    engine = Engine(store, sid, gpu, choice, lambda g: Decision("approve"))
    assert engine.run(sweep) == "finished"
    gpu.close()
    rows = {r.key: r.timestamp for r in store.results(sid)}
    assert len(rows) == 17
    assert all(rows[k] == v for k, v in first.items())


def test_a_session_summary_has_the_contract_fields(hermetic):
    from kt_tui.engine.summary import session_summary

    store = Store(hermetic / "s.db")
    sid, gpu, choice = open_session(store)
    Engine(store, sid, gpu, choice, lambda g: Decision("approve")).run(sweep)
    gpu.close()
    out = session_summary(store, sid)
    for key in ("session", "state", "backend", "gpu", "strategy", "results", "best", "steps", "error"):
        assert key in out
    assert set(out["best"]) == {"time_ms", "params", "kernel_version", "verified"}
    assert out["best"]["verified"] in ("reference", "verified (recorded verdict)")
    assert out["steps"] == [{"title": out["steps"][0]["title"], "state": "approved"}]
