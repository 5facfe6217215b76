"""SIGTERM, SIGHUP (the terminal closed) and Ctrl-C sent to the app's process: a session stops as a
headless one does (engine.interrupt: an LLM call in flight is cancelled, a tuning run ends after the
configuration it is running and stays "stopped", the open gate stays open for resume), then the
app exits with 128 + the signal's number; a second signal aborts (engine.abort_soon). The handlers
run on the app's event loop, so they touch the screen as a message handler would."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import TYPE_CHECKING, Any

from rich.text import Text

from . import deciding

if TYPE_CHECKING:
    from textual.app import App

SessionScreen = Any  # ui/session_screen.py's, which imports this module

SIGNALS: dict[int, str] = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP"}


def install(app: App, on_signal) -> None:
    """on_signal(signum) on the app's loop for each of SIGNALS (where the loop can take signals:
    an app run on the main thread)."""
    loop = asyncio.get_running_loop()
    for signum in SIGNALS:
        try:
            loop.add_signal_handler(signum, on_signal, signum)
        except (ValueError, RuntimeError, NotImplementedError):  # not the main thread: Python's own handling
            return


def remove() -> None:
    loop = asyncio.get_running_loop()
    for signum in SIGNALS:
        try:
            loop.remove_signal_handler(signum)
        except (ValueError, RuntimeError, NotImplementedError):
            return


def stop_session(screen: SessionScreen, signum: int) -> None:
    """The first signal stops the session where it is (a skip or stop held for its undo goes first,
    as on quit); the app exits once the engine thread has ended (leave). The second aborts the run."""
    why = SIGNALS[signum]
    if screen.signalled is not None:
        if screen.engine is not None:
            screen.engine.abort_soon(f"a second {why}")
        return
    screen.signalled = signum
    if signum == signal.SIGHUP:  # the terminal is gone: what the app still draws goes nowhere, never fails
        _no_terminal()
    if screen.held is not None:
        deciding.send_held(screen)
    screen.stopping = True
    if screen.engine is not None:
        screen.engine.interrupt(why)
    screen.bridge.close()  # a gate the engine waits at is left open: resume asks it again
    if not screen.engine_running:
        leave(screen)


def leave(screen: SessionScreen) -> None:
    """Exit with 128 + the signal and a line saying where the session stands; after SIGHUP at once,
    without a word: no terminal is left (the session is stored and unlocked by then)."""
    signum = screen.signalled
    assert signum is not None
    engine = screen.engine
    line = engine.stop_line if engine is not None else None
    if line is None and screen.sid:
        state = screen.data.session()["state"]
        line = f"session {screen.sid} {state}; `kt-tui resume {screen.sid}` opens it"
    screen.shutdown()
    if signum == signal.SIGHUP:  # Textual's exit restores a terminal that is gone (and may wait on it for ever)
        os._exit(128 + signum)
    said = f"kt-tui: {line}" if line else f"kt-tui: stopped by {SIGNALS[signum]}"
    screen.app.exit(return_code=128 + signum, message=Text(said))


def _no_terminal() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd in (1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
