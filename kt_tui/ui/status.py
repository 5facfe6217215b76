"""What the session screen says, from its view model: the gate panel (the open gate, a decision
waiting out its undo, the run, the LLM call, the end), the progress line, and the status bar (what
the session is doing, how far the run is, autopilot, the table's order and filter; one line, always
shown, cut from the right only in its least useful parts)."""

from __future__ import annotations

import time

from rich.console import RenderableType
from rich.text import Text
from textual.binding import Binding
from textual.widgets import Input, Static

from ..engine.verdict import UNMEASURED, waits_for_gpu
from ..words import counted

STATE_STYLE = {
    "RUNNING": "bold black on green",
    "PAUSED": "bold black on yellow",
    "STOPPING": "bold white on red",
    "WAITING FOR YOU": "bold black on cyan",
    "ERROR": "bold white on red",
    "UNDO?": "bold black on yellow",
    "UNMEASURED": "bold black on yellow",
}


class StatusBar(Static):
    pass


def state_word(screen) -> str:
    if screen.state == "error":
        return "ERROR"
    if screen.held is not None:
        return "UNDO?"
    if screen.stopping:
        return "STOPPING"
    if screen.paused:
        return "PAUSED"
    if screen.bridge.waiting and screen.gate is not None:
        return "WAITING FOR YOU"
    if screen.state == "running":
        return "RUNNING"
    return (screen.state or "starting").upper()


def run_progress(screen) -> str:
    """'original: 80 of 767, budget 80' while a run lasts and after it."""
    run = screen.run_info
    if not run.get("total"):
        return ""
    label = screen.table.labels.get(run.get("version"), "this run")
    if run.get("state") == "not measured":
        return f"{label} {run.get('kind') or 'run'}: not measured (no GPU), {counted(run['total'], 'configuration')}"
    text = f"{label} {run.get('kind') or 'run'}: {run['done']} of {counted(run['total'], 'configuration')}"
    if run.get("known"):
        text += f" ({run['known']} measured before)"
    if run.get("budget"):
        text += f", budget {run['budget']}"
    return text


def status_text(screen) -> Text:
    word = state_word(screen)
    keys = screen.keys
    text = Text.assemble((f" {word} ", STATE_STYLE.get(word, "bold reverse")))
    if screen.autopilot:
        text.append(" ")
        text.append(f" AUTOPILOT on ({keys['approve_all']} turns it off) ", "bold black on magenta")
    hint = {
        "PAUSED": f"{keys['pause']} resumes",
        "UNDO?": f"{keys['undo']} undoes",
        "RUNNING": f"{keys['pause']} pauses, {keys['stop']} stops",
    }.get(word)
    parts = [p for p in (hint, run_progress(screen)) if p]
    table = screen.table
    parts.append(f"sort {table.sort_label}" if table.sort_label else "fastest first")
    if table.filter_text:
        parts.append(f"filter “{table.filter_text}”: {counted(len(table.rows), 'row')}")
    text.append(" " + " · ".join(parts))
    return text


def progress_text(screen, width: int = 10**6) -> str:
    """The Results tab's line: measured of planned, elapsed (paused time left out), the best. Where
    it is wider than `width`, the run's progress goes last: the status bar says it too."""
    table = screen.table
    parts = [f"{table.total} measured"]
    run = screen.run_info
    if run.get("total"):
        which = "after restrictions" if run.get("restricted") else "before restrictions"
        parts[0] = f"{run_progress(screen)} ({which})"
    if table.hidden:
        parts.append(f"the table shows the {table.shown} fastest")
    if run.get("started"):
        end = run.get("paused_at") or run.get("ended") or time.monotonic()
        parts.append(f"{end - run['started'] - run.get('paused_s', 0.0):.0f} s elapsed")
    if screen.best and screen.best[1] is not None:
        parts.append(f"best {screen.best[1]:.4f} ms ({screen.best[0]})")
        if screen.baseline_ms:
            parts.append(f"{screen.baseline_ms / screen.best[1]:.2f}x over baseline {screen.baseline_ms:.4f} ms")
    if screen.paused:
        parts.append(f"PAUSED ({screen.keys['pause']} resumes)")
    elif screen.current and screen.state == "running":
        parts.append(f"running {screen.current['key']}")
    text = "  ·  ".join(parts)
    if run.get("total") and len(parts) > 1 and len(text) > width:  # the status bar says the run's progress too
        text = "  ·  ".join([*parts[1:], parts[0]])
    return text


def panel_text(screen) -> RenderableType:
    """The gate panel: why the session cannot go on, a decision waiting out its undo, the open gate,
    else what the engine does (a run, an LLM call) or how the session ended."""
    keys = screen.keys
    if screen.problem:
        return Text.assemble(("Cannot go on: ", "bold red"), screen.problem, f"\n\nPress {keys['quit']} to quit.")
    held = screen.held
    if held is not None:
        return Text.assemble(
            (f"{held.what}: ", "bold"),
            f"{held.title}\n",
            (f"[{keys['undo']}] undoes it", "bold yellow"),
            f" (sent in {held.seconds_left()} s)",
        )
    if screen.gate is not None and screen.bridge.waiting:
        from .gate_view import render_gate  # here: a gate is open, so the engine has loaded the gates

        return render_gate(screen.gate, keys, bool(screen.choice and screen.choice.simulated))
    kind, *about = screen.activity or (None,)
    if kind == "sent":
        return Text(f"{about[0]}: going on…")
    if kind == "running":
        return _running_text(screen)
    if kind == "asking":
        return Text.assemble(("Asking the LLM: ", "bold"), about[0], (f"  ({keys['stop']} cancels the call)", "dim"))
    if kind == "finished":
        return _finished_text(screen, *about)
    return Text("Preparing…")


def _running_text(screen) -> Text:
    run, keys = screen.run_info, screen.keys
    what = f"{run.get('kind') or 'run'} of {screen.table.labels.get(run.get('version'), 'the kernel')}"
    if screen.paused:
        return Text.assemble(
            ("Paused ", "bold yellow"), what, "\n", (f"[{keys['pause']}] resumes, [{keys['stop']}] stops", "bold")
        )
    stop = f"[{keys['stop']}] stop after the current configuration, [{keys['pause']}] pause"
    return Text.assemble(("Running ", "bold"), what, "\n", (stop, "bold"))


def _finished_text(screen, state: str, error: str | None) -> Text:
    keys = screen.keys
    text = Text.assemble(("Session ", "bold"), (state, "bold green" if state == "finished" else "bold"))
    if error:
        text.append(f"\n{error}", style="red")
    more = (
        f", {keys['switch_strategy']} to go on from the best kernel with another strategy"
        if state == "finished"
        else f". The {waits_for_gpu(screen.sid or '?')}"
        if state == UNMEASURED
        else ""
    )
    text.append(f"\nPress {keys['quit']} to quit{more}. `kt-tui sessions` lists it; `kt-tui resume` reopens it.")
    return text


def how_to_go_on(sid: str, state: str) -> str:
    """The line the shell gets when the app is left with `q`: where the session stands and the
    command that goes on from there."""
    if state == "finished":
        return f"session {sid} finished; `kt-tui export {sid} --out DIR` writes its results"
    if state == UNMEASURED:
        return waits_for_gpu(sid)
    return f"session {sid} is kept ({state or 'open'}); `kt-tui resume {sid}` goes on from there"


FILTER_HINT = "filter: rows holding every word (enter keeps it, escape clears)"


class FilterInput(Input):
    """`/` in the session: the results table shows the rows holding every word typed (a parameter's
    value as name=value, a status, a version). Enter goes back to the table with the filter kept;
    escape clears it."""

    BINDINGS = [Binding("escape", "clear_filter", "Clear the filter", id="filter.clear")]

    def action_clear_filter(self) -> None:
        self.value = ""
        self.remove_class("-shown")
        self.screen.query_one("#results").focus()
