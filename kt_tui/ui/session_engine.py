"""The session screen's engine thread: the GPU worker started and the session prepared, the engine
made and run; and the messages it posts the screen: Ready, Problem, EngineEnded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from ..errors import UserError
from ..store import SessionStore
from . import signals

if TYPE_CHECKING:
    from ..engine.backend import BackendChoice

# Imported where used: the engine's strategies, which load on the engine thread.


class Ready(Message):
    def __init__(self, sid: str, choice: BackendChoice) -> None:
        super().__init__()
        self.sid, self.choice = sid, choice


class EngineEnded(Message):
    """The engine thread has returned."""


class Problem(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


def run(screen) -> None:
    """The engine thread's work (SessionScreen.engine_thread): a problem preparing the session, or
    the engine's failure, is posted to the screen as a Problem."""
    services = screen.services_or_fail()
    screen.gpu = services.make_worker(screen.settings)
    try:
        sid, choice = screen.prepare(screen.gpu)
    except UserError as e:
        screen.gpu.close()
        screen.post_message(Problem(str(e)))
        return
    screen.post_message(Ready(sid, choice))
    engine = services.make_engine(
        screen.store, screen.settings, sid, screen.gpu, choice, screen.bridge.decide, screen.bridge.on_event
    )
    screen.engine = engine
    if screen.signalled is not None:  # it came while the session was being prepared
        engine.interrupt(signals.SIGNALS[screen.signalled])
    from ..engine.registry import get_strategy  # here: the strategy's modules load on this thread

    try:
        engine.run(get_strategy(SessionStore(screen.store, sid).session()["strategy"]))
    except Exception as e:  # noqa: BLE001 - the engine stored the failure; show it, stay open
        screen.post_message(Problem(f"the session failed: {type(e).__name__}: {e}"))
    finally:
        screen.gpu.close()
