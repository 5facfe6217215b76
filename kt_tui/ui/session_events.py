"""The engine's events on the session screen: one function per event class (HANDLERS), run by the
screen's Flush handler over each batch the bridge delivers. Each sets the screen's view model
and puts results in its table; events not listed change nothing on the screen."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text

from ..engine.edits import edit_diff
from ..engine.strength import why_nothing_checked
from ..engine.verdict import NOT_MEASURED
from ..words import counted
from .session_panes import show_kernel_view, show_profile
from .session_stored import add_versions, best_version, plot

if TYPE_CHECKING:
    from ..engine import events as ev

# Imported where used: the engine's events (~35 dataclasses) and the gates' views, which come with
# the first event, after the first frame.

_HANDLERS: dict[type, Callable[[Any, Any], None]] = {}


def handle(screen, events: list) -> None:
    from ..engine import events as ev  # loaded by the engine that sent them

    screen.results_added = False
    handlers = _handlers()
    for e in events:
        handler = handlers.get(type(e))
        if handler:
            handler(screen, e)
    if screen.results_added:
        screen.table.keep_order()  # fastest first at every batch, the cursor on its row
        screen.plot_stale = True  # the plot and the progress line catch up on a timer
    if any(not isinstance(e, (ev.Result, ev.Begin)) for e in events):  # results change no binding
        screen._show_progress()
        screen.refresh_bindings()


def _result(screen, e: ev.Result) -> None:
    table = screen.table
    row = table.put(e.result, e.version)
    plot(screen, e.result, e.version)
    screen.results_added = True
    screen.current = None
    if e.run is not None and e.run == screen.run_info.get("run"):
        screen.run_info["done"] = screen.run_info.get("done", 0) + 1
    if e.best:
        screen.best = (e.result.key, e.result.time_ms)
        table.mark_best(row)
        best_version(screen, e.version)


def _begin(screen, e: ev.Begin) -> None:
    screen.current = e.data


def _session(screen, e: ev.SessionChanged) -> None:
    table = screen.table
    if e.best_key is not None:  # a new best, e.g. after a check found the old one wrong
        screen.best = (e.best_key, e.best_ms)
        table.mark_best(table.row_key(e.best_version, e.best_key))
        best_version(screen, e.best_version)
    if e.baseline_ms is not None:
        screen.baseline_ms = e.baseline_ms
        table.set_baseline(screen.baseline_ms)
    if e.state is not None:
        screen.state = e.state
    if e.check_state is not None:
        table.vacuous = why_nothing_checked(e.check_state)


def _run(screen, e: ev.RunStarted) -> None:
    screen.run_info = {**e.data, "started": time.monotonic(), "done": e.known or 0, "paused_s": 0.0}
    add_versions(screen, e.version)  # the plot keeps every version's points: no store read here
    screen.paused = False
    screen.state = "running"
    screen.activity = ("running", e.run)  # each run its own value: the panel names the run going on


def _space(screen, e: ev.SpaceCounted) -> None:
    if screen.run_info.get("run") == e.run:
        screen.run_info.update(total=e.total, restricted=True)


def _run_end(screen, e: ev.RunEnded) -> None:
    screen.paused = screen.stopping = False
    run = screen.run_info
    if screen.sid and run.get("run") == e.run:  # the count the store holds, whatever the events said
        run["done"] = (
            (run.get("known") or 0) - run.get("again", 0) + screen.data.count_results(run.get("version"), run=e.run)
        )
    run["ended"], run["state"] = time.monotonic(), e.state
    if e.error:
        title = f"run {e.run} {e.state}"
        if e.state == NOT_MEASURED:
            screen.notify(e.error, title=title, severity="warning", timeout=5, markup=False)
        else:
            screen.notify(e.error, title=title, severity="error", timeout=5, markup=False)


def _paused(screen, e: ev.Paused) -> None:
    screen.paused = e.on


def _switched(screen, e: ev.Switched) -> None:
    screen.strategy = e.strategy


def _verification(screen, e: ev.Verification) -> None:
    from .gate_view import render_verification

    show_kernel_view(screen, render_verification(e.data))


def _note(screen, e: ev.Note) -> None:
    screen.notify(e.text, timeout=4, markup=False)


def _step(screen, e: ev.StepChanged) -> None:
    """The plan follows the event's fields: no store read on the UI thread."""
    fields = {k: v for k, v in e.data.items() if k != "id" and v is not None}
    step = next((s for s in screen.steps if s["id"] == e.id), None)
    if step is None:
        screen.steps.append({"id": e.id, "title": "", "state": "", "reason": "", **fields})
    else:
        step.update(fields)
    from .gate_view import PlanView

    screen.query_one(PlanView).show(screen.steps)


def _llm_start(screen, e: ev.LlmStart) -> None:
    screen.llm_log.write(Text(f"--- {e.key} ({e.purpose}) ---", style="bold"))
    screen.llm_line = ""
    screen.activity = ("asking", e.key)


def _llm_delta(screen, e: ev.LlmDelta) -> None:
    screen.llm_line += e.text
    *lines, screen.llm_line = screen.llm_line.split("\n")
    log = screen.llm_log
    for line in lines:
        log.write(line)


def _llm_done(screen, e: ev.LlmDone) -> None:
    log = screen.llm_log
    if screen.llm_line:
        log.write(screen.llm_line)
        screen.llm_line = ""
    log.write(
        Text(
            f"--- {e.key} answered" + (f" after {counted(e.repairs, 'repair')}" if e.repairs else "") + " ---",
            style="dim",
        )
    )


def llm_failed(screen, why: str) -> None:
    """The call the tab shows going failed (its gate opens): what came of it, under what it streamed,
    as a resumed session's tab shows a stored failed call."""
    log = screen.llm_log
    if screen.llm_line:
        log.write(screen.llm_line)
        screen.llm_line = ""
    log.write(Text(f"failed: {why}", style="red"))


def _decided(screen, e: ev.Decided) -> None:
    """An edit of yours shows in the Kernel tab as a diff against what was proposed."""
    d = e.decision
    if d.get("choice") == "edit" and isinstance(d.get("before"), dict):
        diff = edit_diff(d["before"], d.get("value")) or "(the edit changed nothing)"
        show_kernel_view(
            screen,
            Group(
                Text(f"Your edit at {e.key}, against what was proposed:", style="bold"),
                Syntax(diff, "diff", theme="ansi_dark", word_wrap=True),
            ),
        )


def _profile(screen, e: ev.Profiled) -> None:
    show_profile(screen)


def _finished(screen, e: ev.Finished) -> None:
    screen.state = e.state
    screen.gate = None
    screen.autopilot = False
    screen.activity = ("finished", e.state, e.error)


def _handlers() -> dict[type, Callable[[Any, Any], None]]:
    """Event class -> its function, made at the first events (the engine has loaded their module)."""
    if not _HANDLERS:
        from ..engine import events as ev

        _HANDLERS.update(
            {
                ev.Result: _result,
                ev.Begin: _begin,
                ev.SessionChanged: _session,
                ev.RunStarted: _run,
                ev.SpaceCounted: _space,
                ev.RunEnded: _run_end,
                ev.Paused: _paused,
                ev.Switched: _switched,
                ev.Verification: _verification,
                ev.Note: _note,
                ev.Profiled: _profile,
                ev.StepChanged: _step,
                ev.LlmStart: _llm_start,
                ev.LlmDelta: _llm_delta,
                ev.LlmDone: _llm_done,
                ev.Finished: _finished,
                ev.Decided: _decided,
            }
        )
    return _HANDLERS
