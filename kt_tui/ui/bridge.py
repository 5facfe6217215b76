"""Between the engine thread and the UI: events are queued and delivered in batches (one Flush
message at a time, however fast results come), and each gate waits on a Future that a key
press resolves. Only message handlers on the UI side touch widgets."""

from __future__ import annotations

import threading
from collections import deque
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the engine's events and gates load with the engine, after the first frame
    from ..engine.events import Event
    from ..engine.gates import Decision, Gate


class Flush(Message):
    """Engine events are waiting in the bridge."""


class GateOpened(Message):
    def __init__(self, gate: Gate) -> None:
        super().__init__()
        self.gate = gate


class Bridge:
    def __init__(self, target) -> None:
        self.target = target  # a widget or screen: post_message is thread-safe
        self._events: deque[Event] = deque()
        self._lock = threading.Lock()
        self._flush_posted = False
        self._pending: Future | None = None
        self.closed = False

    # engine thread ---------------------------------------------------------------------
    def on_event(self, event: Event) -> None:
        with self._lock:
            self._events.append(event)
            if self._flush_posted:
                return
            self._flush_posted = True
        self.target.post_message(Flush())

    def decide(self, gate: Gate) -> Decision | None:
        if self.closed:
            return None
        future: Future = Future()
        self._pending = future
        self.target.post_message(GateOpened(gate))
        while True:  # never outlive the UI: a thread blocked here would keep the process alive
            try:
                return future.result(timeout=0.25)
            except FutureTimeout:
                if self.closed or not self.target.is_attached or not self.target.app.is_running:
                    return None

    # UI thread -------------------------------------------------------------------------
    def drain(self) -> list[Event]:
        with self._lock:
            events = list(self._events)
            self._events.clear()
            self._flush_posted = False
        return events

    def answer(self, decision: Decision) -> bool:
        future, self._pending = self._pending, None
        if future is None or future.done():
            return False
        future.set_result(decision)
        return True

    @property
    def waiting(self) -> bool:
        return self._pending is not None and not self._pending.done()

    def close(self) -> None:
        """The UI is going away: a pending gate stays pending (stored), the engine unwinds."""
        self.closed = True
        future, self._pending = self._pending, None
        if future is not None and not future.done():
            future.set_result(None)
