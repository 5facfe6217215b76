"""SIGTERM and SIGHUP (the terminal closed) at the terminal UI, sent as real signals to `kt-tui
KERNEL` running in a pseudo-terminal that is its controlling terminal: the session is left
"stopped" (never "running" or "waiting" with no word), at the gate it showed or with the run it cut
stopped, and a resume goes on from there; the exit status is 128 + the signal. Sim replays of the
cache recorded on an NVIDIA H200 (2026-11-22), slowed with KT_TUI_SIM_PACE."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli
from .test_ui import Keys, gate_key, resumed_app, wait_for


class Terminal:
    """`kt-tui ARGS` in a pseudo-terminal of 80x24 that is its controlling terminal, as a terminal
    emulator runs it: closing it hangs the session up (SIGHUP). What the app draws is read and kept."""

    def __init__(self, *args, pace: float = 0.0):
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
        env = {**os.environ, "KT_TUI_SIM_PACE": str(pace), "PYTHONPATH": path, "TERM": "xterm-256color"}

        def controlling_terminal():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kt_tui", *map(str, args)],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            preexec_fn=controlling_terminal,
        )
        os.close(slave)
        self.screen = bytearray()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self.screen.extend(chunk)

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def hang_up(self) -> None:
        os.close(self.master)

    def wait(self, timeout: float = 60) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()

    def output(self) -> str:
        return self.screen.decode(errors="replace")


def until(store: Store, condition, proc: subprocess.Popen, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while True:
        sessions = store.sessions()
        found = condition(sessions[0]) if sessions else None
        if found:
            return found
        assert proc.poll() is None, f"the app ended early ({proc.returncode})"
        assert time.monotonic() < deadline, sessions
        time.sleep(0.1)


def open_gate(store: Store, session: dict) -> str | None:
    if session["state"] != "waiting":
        return None
    rows = store.conn.execute("SELECT key FROM gates WHERE state = 'pending'").fetchall()
    return rows[-1][0] if rows else None


def tuning(store: Store, pace: float, results: int) -> tuple[Terminal, str]:
    """matmul's sweep approved in the app and tuning, `results` stored: the app and the session."""
    tui = Terminal(EXAMPLES / "matmul.cu", "--backend", "sim", pace=pace)
    until(store, lambda s: open_gate(store, s) == "sweep:1", tui.proc)
    time.sleep(0.5)  # the screen shows it
    tui.type("s")
    return tui, until(store, lambda s: s["id"] if store.count_results(s["id"]) >= results else None, tui.proc)


async def test_sigterm_at_a_gate_stops_the_session_there_and_resume_asks_it_again(hermetic):
    store = Store(hermetic / "sessions.db")
    tui = Terminal(EXAMPLES / "matmul.cu", "--backend", "sim")
    assert until(store, lambda s: open_gate(store, s), tui.proc) == "sweep:1"
    time.sleep(0.5)  # the screen shows it
    tui.proc.send_signal(signal.SIGTERM)
    code = tui.wait()
    sid = store.sessions()[0]["id"]
    assert code == 143, tui.output()[-2000:]
    assert store.session(sid)["state"] == "stopped"
    assert store.gate(sid, "sweep:1").state != "decided"  # nothing decided for you
    assert f"session {sid} stopped by SIGTERM" in tui.output() and f"kt-tui resume {sid}" in tui.output()

    app = resumed_app(sid)
    async with app.run_test(size=(80, 24)) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) is not None)
        assert gate_key(screen) == "sweep:1"
        await Keys(real).press("q")


def test_the_terminal_closed_during_a_tune_stops_the_run_and_resume_measures_the_rest(capsys, hermetic):
    store = Store(hermetic / "sessions.db")
    tui, sid = tuning(store, 0.3, 4)
    tui.hang_up()
    code = tui.wait()
    assert code == 129
    assert store.session(sid)["state"] == "stopped"
    assert store.run(sid, "sweep:1").state == "stopped"
    assert not [r for r in store.results(sid) if r.status != "ok"]  # no configuration lost to the hang-up
    assert store.count_results(sid) < 17
    code, again = run_cli(capsys, "resume", sid, "--auto", "--json")
    assert code == 0 and again["state"] == "finished" and again["results"] == 17, again


def test_a_second_sigterm_aborts_at_once_and_leaves_the_session_stopped(capsys, hermetic):
    store = Store(hermetic / "sessions.db")
    tui, sid = tuning(store, 2.0, 2)
    tui.proc.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    tui.proc.send_signal(signal.SIGTERM)
    code = tui.wait(timeout=10)  # a hang guard: it does not wait for the running configuration
    assert code == 143, tui.output()[-2000:]
    assert store.session(sid)["state"] == "stopped"
    assert all(r.state != "running" for r in store.runs(sid))
    code, again = run_cli(capsys, "resume", sid, "--auto", "--json")
    assert code == 0 and again["state"] == "finished" and again["results"] == 17, again
