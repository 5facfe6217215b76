"""Resuming a session: a finished one stays as it is, the LLM it was made with is offered, a
backend asked for is used or refused, and one process runs a session at a time."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kt_tui.cli import main
from kt_tui.store import Store

from ..conftest import EXAMPLES, HAS_GPU
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer
from .test_autonomous import CACHES, replies


def snapshot(store: Store, sid: str) -> dict:
    s = store.session(sid)
    return {
        "state": s["state"],
        "best": (s["best_ms"], s["best_version"]),
        "strategy": s["strategy"],
        "versions": [(v["id"], v["spec_json"]) for v in store.versions(sid)],
        "runs": [(r.id, r.state) for r in store.runs(sid)],
        "results": len(store.results(sid)),
        "steps": [(x["id"], x["state"]) for x in store.steps(sid)],
    }


@pytest.fixture
def autonomous_session(capsys, hermetic):
    with ScriptedServer(replies("matmul")) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "matmul.cu",
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
        )
        url = server.url
    assert code == 0 and out["state"] == "finished"
    return out["session"], url, Store(hermetic / "sessions.db")


def test_resuming_a_finished_session_without_an_llm_changes_nothing(capsys, autonomous_session):
    sid, _, store = autonomous_session
    before = snapshot(store, sid)
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json", "--llm", "none")
    assert code == 0 and out["state"] == "finished" and out["error"] is None
    assert snapshot(store, sid) == before


def test_a_session_resumed_without_an_llm_keeps_what_the_llm_said(capsys, autonomous_session):
    sid, _, store = autonomous_session
    before = snapshot(store, sid)
    verdict = store.gate(sid, "step:3").body["verdict"]
    assert verdict and verdict["valid"]
    with store.db.conn:  # as if the session had stopped at step 3's gate
        store.db.conn.execute("DELETE FROM gates WHERE session = ? AND key = 'step:3'", [sid])
    store.update_session(sid, state="waiting")
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json", "--llm", "none")
    assert code == 0 and out["state"] == "finished" and out["error"] is None
    shown = store.gate(sid, "step:3").body
    assert shown["verdict"] == verdict and shown["note"] is None
    # the stored kernels are replayed as they were: no new version, nothing measured again
    assert snapshot(store, sid) == before


def test_the_llm_a_session_was_made_with_is_offered_on_resume(capsys, monkeypatch, autonomous_session):
    sid, url, store = autonomous_session
    stored = json.loads(store.session(sid)["settings"])
    assert stored["model"] == MODEL and stored["base_url"] == url and "api_key" not in stored
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-stored")
    assert main(["resume", sid, "--auto", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["state"] == "finished"
    assert f"Using the LLM this session was made with: {MODEL} at {url}" in captured.err
    from kt_tui.config import load_settings
    from kt_tui.front.session import stored_llm

    settings = load_settings({})
    assert MODEL in stored_llm(store, settings, sid) and settings.model == MODEL and settings.base_url == url
    assert stored_llm(store, load_settings({"llm": "none"}), sid) == ""
    assert "sk-not-stored" not in (store.path and open(store.path, "rb").read().decode("latin-1"))


@pytest.mark.skipif(HAS_GPU, reason="on a GPU machine pycuda may work")
def test_resume_with_a_backend_that_does_not_work_is_refused(capsys, hermetic):
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0
    store = Store(hermetic / "sessions.db")
    before = snapshot(store, out["session"])
    code, again = run_cli(capsys, "resume", out["session"], "--auto", "--json", "--backend", "pycuda")
    assert code == 2 and "backend pycuda does not work here" in again["error"]
    assert store.session(out["session"])["backend"] == "sim" and snapshot(store, out["session"]) == before
    assert not [e for e in store.events(out["session"]) if e["kind"] == "backend_fallback"]


def test_a_fallback_from_the_stored_backend_is_an_event(hermetic):
    from kt_tui.config import load_settings
    from kt_tui.front.session import resume_backend

    store = Store(hermetic / "sessions.db")
    sid = store.create_session(
        kernel_path=str(EXAMPLES / "vector_add.cu"),
        kernel_name="vector_add",
        strategy="sweep",
        backend="nvcuda",
        backend_request="nvcuda",
        gpu="H100",
    )
    store.add_version(sid, "v0", "src", "", {}, label="original")

    class NoGpu:
        @staticmethod
        def probe(backends):
            return {"backend": None, "errors": {b: "no GPU" for b in backends}}

    choice = resume_backend(store, load_settings({}), NoGpu(), sid)
    assert choice.backend == "none" and "nvcuda does not work" in choice.note
    [event] = [e for e in store.events(sid) if e["kind"] == "backend_fallback"]
    assert event["data"]["from"] == "nvcuda" and event["data"]["to"] == "none"


# -- one process per session ---------------------------------------------------------------------
def wait_for(check, what: str, limit: float = 60):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


def lock_row(db) -> str | None:
    """The session some process holds a lock on (its record in DB.locks/), or None."""
    for path in Path(f"{db}.locks").glob("*.lock"):
        try:
            return json.loads(path.read_text())["session"]
        except (OSError, ValueError, KeyError):  # being written
            return None
    return None


def test_a_second_process_on_a_session_is_refused_naming_the_first(capsys, hermetic):
    db = hermetic / "sessions.db"
    env = dict(os.environ, KT_TUI_SIM_PACE="0.5")
    first = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kt_tui",
            "run",
            str(EXAMPLES / "matmul.cu"),
            "--auto",
            "--backend",
            "sim",
            "--db",
            str(db),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        sid = wait_for(lambda: lock_row(db), "the first process to take its session")
        store = Store(db)
        holder = store.lock_holder(sid)
        assert holder["pid"] == first.pid and holder["host"] == socket.gethostname()
        code = run_cli(capsys, "resume", sid, "--auto", "--backend", "sim")[0]
        err = capsys.readouterr().err
        assert code == 2
        assert f"session {sid} is open in process {first.pid} (since {holder['since']})" in err
        assert first.poll() is None  # the first one goes on
    finally:
        first.kill()
        first.wait()
    # the killed process's lock died with it (a kernel lock): nothing stale to take over
    assert store.lock_holder(sid) is None
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json", "--backend", "sim")
    assert code == 0 and out["state"] == "finished" and out["results"] == 17
    assert store.lock_holder(sid) is None  # released at the end


def test_a_lock_is_taken_over_only_from_a_dead_process(hermetic):
    from kt_tui.store.db import SessionLocked

    from ..store.test_locks import _holder

    store = Store(hermetic / "sessions.db")
    sid = store.create_session(kernel_path="k.cu", kernel_name="k", strategy="sweep")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    store.db["locks"].insert({"session": sid, "pid": dead.pid, "host": socket.gethostname(), "since": "then"})
    store.lock(sid)
    assert store.lock_holder(sid)["pid"] == os.getpid()
    store.unlock(sid)
    live = _holder(hermetic / "sessions.db", sid)
    try:
        with pytest.raises(SessionLocked, match=f"open in process {live.pid}"):
            store.lock(sid)
        store.unlock(sid)  # not ours: left alone
        assert store.lock_holder(sid)["pid"] == live.pid
    finally:
        live.kill()
        live.wait()


# -- the same in the terminal UI -------------------------------------------------------------------
def sim_session(capsys) -> str:
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0 and out["state"] == "finished"
    return out["session"]


async def test_the_ui_says_which_process_holds_a_session(capsys, hermetic):
    from ..store.test_locks import _holder
    from ..ui.test_ui import SIZE, resumed_app
    from ..ui.test_ui import wait_for as ui_wait

    sid = sim_session(capsys)
    store = Store(hermetic / "sessions.db")
    live = _holder(hermetic / "sessions.db", sid)
    since = store.lock_holder(sid)["since"]
    try:
        app = resumed_app(sid)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            await ui_wait(pilot, lambda: screen.state == "error")
            assert f"session {sid} is open in process {live.pid} (since {since})" in str(
                screen.query_one("#gate").render()
            )
            await pilot.press("q")
        assert store.lock_holder(sid)["pid"] == live.pid
    finally:
        live.kill()
        live.wait()


async def test_a_finished_session_opens_as_it_is_and_w_goes_on(capsys, hermetic):
    from textual.widgets import OptionList

    from kt_tui.ui.strategy_picker import StrategyPicker

    from ..ui.test_ui import SIZE, resumed_app
    from ..ui.test_ui import wait_for as ui_wait

    sid = sim_session(capsys)
    store = Store(hermetic / "sessions.db")
    before = snapshot(store, sid)
    app = resumed_app(sid)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await ui_wait(pilot, lambda: screen.state == "finished")
        assert snapshot(store, sid) == before and store.lock_holder(sid)["pid"] == os.getpid()
        await pilot.press("w")
        await ui_wait(pilot, lambda: isinstance(app.screen, StrategyPicker))
        options = app.screen.query_one(OptionList)
        options.highlighted = next(
            i for i in range(options.option_count) if options.get_option_at_index(i).id == "explicit"
        )
        await pilot.press("enter")
        await ui_wait(pilot, lambda: screen.bridge.waiting and screen.gate is not None)
        assert store.session(sid)["strategy"] == "explicit" and store.session(sid)["state"] == "waiting"
        await pilot.press("q")
    assert store.lock_holder(sid) is None
    assert [e["data"]["strategy"] for e in store.events(sid) if e["kind"] == "switched"] == ["explicit"]


async def test_an_unknown_key_binding_id_is_a_warning(capsys):
    from ..ui.test_ui import SIZE, resumed_app
    from ..ui.test_ui import wait_for as ui_wait

    sid = sim_session(capsys)
    app = resumed_app(sid)
    app.settings.keys = {"strat": "g", "start": "enter"}
    shown = []
    app.notify = lambda message, **kw: shown.append((message, kw.get("severity")))
    async with app.run_test(size=SIZE) as pilot:
        await ui_wait(pilot, lambda: app.screen.state == "finished")
        await pilot.press("q")
    [(message, severity)] = [(m, s) for m, s in shown if "[keys]" in m]
    assert "no key binding 'strat'" in message and "start" in message and severity == "warning"
