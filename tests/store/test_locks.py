"""One lock per session that dies with its process (store/lock.py): delete, export and resume honour
it; kill -9 frees it at once; a record left with a reused PID holds nothing."""

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from kt_tui.store import Store
from kt_tui.store.lock import SessionLocked, lock_path

ROOT = Path(__file__).resolve().parents[2]
HOLD = """
import sys, time
from kt_tui.store import Store
Store(sys.argv[1]).lock(sys.argv[2])
print("locked", flush=True)
time.sleep(120)
"""


def _holder(db: Path, sid: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db), sid],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout.readline() == "locked\n"
    return proc


@pytest.fixture
def session(tmp_path):
    store = Store(tmp_path / "sessions.db")
    sid = store.create_session(kernel_path="k.cu", kernel_name="k", strategy="sweep", state="running")
    store.add_event(sid, "started", {})
    return store, sid


def test_a_session_another_process_runs_cannot_be_deleted_and_kill_9_frees_it(session):
    store, sid = session
    holder = _holder(Path(store.path), sid)
    try:
        who = store.lock_holder(sid)
        assert who["pid"] == holder.pid and who["host"] == socket.gethostname() and who["started"]
        with pytest.raises(SessionLocked, match=f"session {sid} is open in process {holder.pid} "):
            store.delete_session(sid)
        assert store.session(sid) is not None and store.events(sid)
        with pytest.raises(SessionLocked):
            store.lock(sid)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert store.lock_holder(sid) is None  # no wait, no staleness check: the kernel dropped it
    store.delete_session(sid)
    assert store.session(sid) is None and not store.events(sid)


def test_a_record_left_with_a_reused_pid_is_taken_over(session):
    store, sid = session
    path = lock_path(store.path, sid)
    path.parent.mkdir(exist_ok=True)
    live = os.getppid()  # a live process of this user, as a PID reused after kill -9 would be
    path.write_text(json.dumps({"session": sid, "pid": live, "host": socket.gethostname(), "since": "then"}))
    store.db["locks"].insert({"session": sid, "pid": live, "host": socket.gethostname(), "since": "then"})
    assert store.lock_holder(sid) is None
    store.lock(sid)
    assert store.lock_holder(sid)["pid"] == os.getpid()
    with pytest.raises(SessionLocked, match="open in this kt-tui"):
        store.delete_session(sid)  # this process runs it
    store.unlock(sid)
    assert store.lock_holder(sid) is None and not path.exists()


def test_export_says_a_session_is_running(session, capsys, tmp_path):
    from kt_tui.cli import main

    store, sid = session
    holder = _holder(Path(store.path), sid)
    try:
        main(["export", sid, "--db", store.path, "--out", str(tmp_path / "out")])
    finally:
        holder.kill()
        holder.wait()
    assert f"session {sid} is running in process {holder.pid}" in capsys.readouterr().err


async def test_the_browser_refuses_to_delete_a_running_session(session):
    from kt_tui.config import load_settings
    from kt_tui.front.commands import tui_app
    from kt_tui.ui.sessions_screen import SessionsScreen

    from ..ui.test_ui import SIZE, wait_for

    store, sid = session
    holder = _holder(Path(store.path), sid)
    try:
        app = tui_app(load_settings({}), store, browse=True)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen))
            await pilot.press("d")
            await pilot.pause(0.3)
            assert isinstance(app.screen, SessionsScreen)  # no "delete?" question
            assert any(f"running in process {holder.pid}" in n.message for n in app._notifications)
        assert store.session(sid) is not None
    finally:
        holder.kill()
        holder.wait()
