"""Answering the open gate from the session screen: a decision goes to the engine through the
bridge; a skip or stop of yours, a stop of the running run and the autopilot's first decision are
held UNDO_S seconds first (u takes them back). What is held is the screen's `held`."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from textual.timer import Timer

from .confirm import AskScreen
from .widgets import GatePanel

if TYPE_CHECKING:
    from ..engine.gates import Decision, Gate

DESTRUCTIVE = ("skip", "stop")  # a decision held UNDO_S seconds before the engine gets it; u takes it back
UNDO_DEFAULT = 3.0  # tests set 0: a skip or stop goes at once


def undo_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get("KT_TUI_UNDO_S", UNDO_DEFAULT)))
    except ValueError:
        return UNDO_DEFAULT


@dataclass(eq=False)
class Held:
    """A decision waiting out its undo: `send` runs when the time is up (or at once on quit)."""

    what: str  # "skip", "stop", "autopilot": what the panel and the notice call it
    title: str  # what it is about
    send: Callable[[], None]
    timer: Timer
    until: float  # time.monotonic() when it is sent: the panel counts down to it
    autopilot: bool = False  # a stop that turned the autopilot off: u turns it on again

    def seconds_left(self) -> int:
        return max(0, math.ceil(self.until - time.monotonic()))


def hold(screen, what: str, title: str, send: Callable[[], None], autopilot: bool = False) -> None:
    """`send` after the undo time (at once when it is 0)."""
    delay = undo_seconds()
    if not delay:
        send()
        return
    timer = screen.set_timer(delay, lambda: send_held(screen))
    screen.held = Held(what, title, send, timer, time.monotonic() + delay, autopilot)


def decide(screen, choice: str, value: Any = None, by: str = "user", why: str | None = None) -> None:
    """Answer the open gate; a skip or stop of yours is held first, nothing has run on it until then."""
    from ..engine.gates import Decision  # loaded with the gate

    gate = screen.gate
    if screen.held is not None or gate is None or not screen.bridge.waiting:
        return
    decision = Decision(choice, value, by=by, why=why)
    if by == "user" and choice in DESTRUCTIVE:
        hold(screen, choice, gate.title, lambda: send(screen, decision))
    else:
        send(screen, decision)


def send(screen, decision: Decision) -> None:
    gate = screen.gate
    named = gate.choice_name(decision.choice) if gate is not None else decision.choice  # reject, not skip
    if screen.bridge.answer(decision):
        screen.gate = None
        screen.activity = ("sent", named)


def send_held(screen) -> None:
    held, screen.held = screen.held, None
    if held is not None:
        held.timer.stop()
        held.send()


def undo(screen) -> None:
    held, screen.held = screen.held, None
    if held is None:
        return
    held.timer.stop()
    if held.what == "autopilot":
        screen.autopilot = False
    elif held.autopilot and screen.state == "running" and not screen.bridge.waiting:
        screen.autopilot = True  # the run it was stopping goes on, and so does the autopilot
    screen.notify(f"{held.what} undone", timeout=2)  # the gate, still open, shows again


def confirmed(screen, question: str, then: Callable[[], None]) -> None:
    """Act at once from the gate panel; from any other widget (a table, a tab) ask first."""
    if isinstance(screen.focused, GatePanel):
        then()
        return
    screen.app.push_screen(AskScreen(question), lambda yes: then() if yes else None)


def skip(screen) -> None:
    gate = screen.gate
    what = "Reject" if gate is not None and gate.kind == "accept" else "Skip"
    confirmed(screen, f"{what}: {gate.title if gate else 'this'}?", lambda: decide(screen, "skip"))


def stop(screen) -> None:
    if screen.bridge.waiting:
        confirmed(screen, "Stop the session here? (kt-tui resume goes on from this gate)", lambda: stop_now(screen))
    elif screen.engine is not None and screen.state == "running":
        confirmed(screen, "Stop this run after the current configuration?", lambda: stop_now(screen))


def stop_now(screen) -> None:
    """A stop at the gate, or of the running run or LLM call: held like a skip, u takes it back
    (with the autopilot, when it was on)."""
    autopilot, screen.autopilot = screen.autopilot, False
    if screen.bridge.waiting:
        decide(screen, "stop")
    elif screen.engine is not None and screen.state == "running" and not screen.stopping:
        what = "the run, after the configuration running now"
        hold(screen, "stop", what, lambda: _stop_run(screen), autopilot=autopilot)


def _stop_run(screen) -> None:
    if screen.engine is not None and screen.state == "running":
        screen.engine.request_stop()  # also cancels an LLM call in flight: its gate opens next
        screen.stopping = True
        screen.notify("Stopping after the current configuration (an LLM call in flight is cancelled).")


def autopilot_decision(screen, gate: Gate) -> Decision | None:
    """What the autopilot answers at gate (the --auto policy's answer), or None where that is a stop."""
    decision = screen.services_or_fail().make_policy()(gate)
    return None if decision.choice == "stop" else replace(decision, by="autopilot")


def approve_all(screen) -> None:
    """Autopilot, after a yes: this gate and every later one decided by the --auto policy; its first
    decision is held (u undoes it and the autopilot), and A again turns it off."""
    if screen.autopilot:
        screen.autopilot = False
        screen.notify("Autopilot off: you decide the next gate.", timeout=3)
        return

    def on(yes: bool | None) -> None:
        if not yes or screen.held is not None:
            return
        screen.autopilot = True
        gate = screen.gate
        if gate is None or not screen.bridge.waiting:
            return
        decision = autopilot_decision(screen, gate)
        if decision is None:  # the policy would stop here: the gate stays for you
            screen.autopilot = False
            screen.notify("Autopilot: the --auto policy stops at this gate, so it is yours to decide.", timeout=5)
            return
        hold(screen, "autopilot", f"{decision.choice}: {gate.title}", lambda: send(screen, decision))

    key = screen.keys["approve_all"]
    screen.app.push_screen(
        AskScreen(
            "Autopilot: decide this gate and every later one as `kt-tui run --auto` would? "
            f"({screen.keys['undo']} undoes its first decision; {key} turns it off)"
        ),
        on,
    )
