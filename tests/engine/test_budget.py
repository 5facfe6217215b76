"""One budget per session: `--max-configs 8` is 8 configurations measured by the sweep, counted from
the store, whether the session ran at once, was killed (-9) and resumed once or many times, was
stopped and continued, or stopped and resumed. matmul's space holds 17 configurations; an
uninterrupted sweep with a budget of 8 measures the baseline and 8 more: 9 results. Sim replays of
caches recorded on an NVIDIA H200 (2026-11-22)."""

from __future__ import annotations

import os
import signal

from kt_tui.engine.events import Decision
from kt_tui.store import Store

from ..cli.test_signals import Headless
from ..conftest import EXAMPLES
from ..helpers import run_cli
from .test_engine import sweep_stopped_at

ARGS = ("run", EXAMPLES / "matmul.cu", "--auto", "--json", "--backend", "sim", "--max-configs", "8")


def _killed_after(hermetic, results: int, *args) -> None:
    run = Headless(hermetic, *(args or ARGS))
    run.wait_for(lambda err: err.count(" ms  ok") >= results)
    os.killpg(run.proc.pid, signal.SIGKILL)
    run.proc.wait(10)


def _last_run_event(store: Store, sid: str) -> dict:
    return [e["data"] for e in store.events(sid) if e["kind"] == "run" and e["data"]["run"] == "sweep:1"][-1]


def test_uninterrupted_it_measures_the_baseline_and_the_budget(capsys, hermetic):
    code, out = run_cli(capsys, *ARGS)
    assert code == 0 and out["results"] == 9


def test_killed_and_resumed_many_times_the_budget_is_the_sessions(capsys, hermetic):
    store = Store(hermetic / "sessions.db")
    _killed_after(hermetic, 3)
    sid = store.latest_session()["id"]
    run = Headless(hermetic, "resume", sid, "--auto", "--json")  # killed again, two results later
    run.wait_for(lambda err: err.count(" ms  ok") >= 2)
    os.killpg(run.proc.pid, signal.SIGKILL)
    run.proc.wait(10)
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json")
    assert code == 0 and out["state"] == "finished" and out["results"] == 9, out
    # what the counter reads at the run's end (ui/session_events.py): measured before less this run's, plus its own
    e = _last_run_event(store, sid)
    done = (e["known"] or 0) - (e.get("again") or 0) + store.count_results(sid, e["version"], run="sweep:1")
    assert e["budget"] == 8 and done == 9
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json")  # once more: nothing left to measure
    assert out["results"] == 9


def test_stopped_with_ctrl_c_and_resumed_the_budget_holds(capsys, hermetic):
    run = Headless(hermetic, *ARGS)
    run.wait_for(lambda err: err.count(" ms  ok") >= 4)
    run.ctrl_c()
    code, out = run.finish()
    assert code == 130 and out["results"] < 9
    code, out = run_cli(capsys, "resume", out["session"], "--auto", "--json")
    assert code == 0 and out["results"] == 9, out


def test_stopped_and_continued_in_one_session_the_sweep_keeps_one_budget(hermetic, monkeypatch):
    """As `x` during the sweep, then approve at "Continue the sweep?": the second part measures what
    the first left of the budget."""
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.05")
    store = Store(hermetic / "s.db")
    sid, state = sweep_stopped_at(store, 4, lambda g: Decision("approve"), options={"max_configs": 8})
    assert state == "finished"
    assert store.run(sid, "sweep:2") is not None and store.count_results(sid) == 9


def test_a_resume_that_finds_the_budget_spent_stores_the_run_it_ends_whole(hermetic, monkeypatch):
    """Stopped once the sweep's first run had measured its whole budget, then stopped at "Continue
    the sweep?": the resume's second run ends before it starts, and its row says what it was."""
    from kt_tui.config import load_settings
    from kt_tui.engine.core import Engine
    from kt_tui.engine.strategies.sweep import sweep
    from kt_tui.front.session import resume_backend
    from kt_tui.gpu.tuner import Tuner

    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.05")
    store = Store(hermetic / "s.db")
    options = {"max_configs": 8}
    first = {"sweep:1": Decision("approve")}
    sid, state = sweep_stopped_at(store, 9, lambda g: first.get(g.key, Decision("stop")), options=options)
    assert state == "stopped" and store.run(sid, "sweep:2") is None
    gpu = Tuner()
    try:
        choice = resume_backend(store, load_settings({"backend": "sim"}), gpu, sid)
        assert Engine(store, sid, gpu, choice, lambda g: Decision("approve"), options=options).run(sweep) == "finished"
    finally:
        gpu.close()
    run = store.run(sid, "sweep:2")
    assert run is not None and run.state == "finished"
    assert run.version == store.versions(sid)[0]["id"] and run.kind == "tune"
    assert store.count_results(sid) == 9
