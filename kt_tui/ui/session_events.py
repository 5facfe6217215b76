"""The session screen's answers to the engine's events, one handler per event class (event_handlers);
events not listed change nothing on the screen. A mixin of SessionScreen, run on the UI thread."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.syntax import Syntax
from rich.text import Text
from textual.widgets import Static

from ..engine.edits import edit_diff
from ..engine.strength import why_nothing_checked
from ..engine.verdict import NOT_MEASURED, UNMEASURED, waits_for_gpu
from .widgets import GatePanel

if TYPE_CHECKING:
    from ..engine import events as ev
    from .session_shape import SessionShape as _Screen
else:
    _Screen = object

# Imported where used: the engine's events and gates (~35 dataclasses) and the gates' views, which
# come with the first event or gate, after the first frame.

_HANDLERS: dict[type, Callable[[Any, Any], None]] = {}


class SessionEvents(_Screen):
    # -- one handler per event class (event_handlers below); events not listed change nothing here --
    def _on_result(self, e: ev.Result) -> None:
        table = self.table
        row = table.put(e.result, e.version)
        self._plot(e.result, e.version)
        self.results_added = True
        self.current = None
        if e.run is not None and e.run == self.run_info.get("run"):
            self.run_info["done"] = self.run_info.get("done", 0) + 1
        if e.best:
            self.best = (e.result.key, e.result.time_ms)
            table.mark_best(row)
            self._best_version(e.version)

    def _on_begin(self, e: ev.Begin) -> None:
        self.current = e.data

    def _on_session(self, e: ev.SessionChanged) -> None:
        table = self.table
        if e.best_key is not None:  # a new best, e.g. after a check found the old one wrong
            self.best = (e.best_key, e.best_ms)
            table.mark_best(table.row_key(e.best_version, e.best_key))
            self._best_version(e.best_version)
        if e.baseline_ms is not None:
            self.baseline_ms = e.baseline_ms
            table.set_baseline(self.baseline_ms)
        if e.state is not None:
            self.state = e.state
        if e.check_state is not None:
            table.vacuous = why_nothing_checked(e.check_state)

    def _on_run(self, e: ev.RunStarted) -> None:
        self.run_info = {**e.data, "started": time.monotonic(), "done": e.known or 0, "paused_s": 0.0}
        self._add_versions(e.version)  # the plot keeps every version's points: no store read here
        self.paused = False
        self.state = "running"
        self.query_one(GatePanel).update(self._running_text())

    def _on_space(self, e: ev.SpaceCounted) -> None:
        if self.run_info.get("run") == e.run:
            self.run_info.update(total=e.total, restricted=True)

    def _on_run_end(self, e: ev.RunEnded) -> None:
        self._pause_clock(False)
        self.stopping = self.paused = False
        run = self.run_info
        if self.sid and run.get("run") == e.run:  # the count the store holds, whatever the events said
            run["done"] = (
                (run.get("known") or 0) - run.get("again", 0) + self.data.count_results(run.get("version"), run=e.run)
            )
        self.run_info["ended"], self.run_info["state"] = time.monotonic(), e.state
        if e.error:
            if e.state == NOT_MEASURED:
                self.notify(e.error, title=f"run {e.run} {e.state}", severity="warning", timeout=5, markup=False)
            else:
                self.notify(e.error, title=f"run {e.run} {e.state}", severity="error", timeout=5, markup=False)

    def _on_paused(self, e: ev.Paused) -> None:
        self.paused = e.on
        self._pause_clock(e.on)
        if self.state == "running" and not self.bridge.waiting:
            self.query_one(GatePanel).update(self._running_text())

    def _on_switched(self, e: ev.Switched) -> None:
        self.strategy = e.strategy
        self._banner()

    def _on_verification(self, e: ev.Verification) -> None:
        from .gate_view import render_verification

        self.query_one("#kernel-view", Static).update(render_verification(e.data))

    def _on_note(self, e: ev.Note) -> None:
        self.notify(e.text, timeout=4, markup=False)

    def _on_step(self, e: ev.StepChanged) -> None:
        """The plan follows the event's fields: no store read on the UI thread."""
        fields = {k: v for k, v in e.data.items() if k != "id" and v is not None}
        step = next((s for s in self.steps if s["id"] == e.id), None)
        if step is None:
            self.steps.append({"id": e.id, "title": "", "state": "", "reason": "", **fields})
        else:
            step.update(fields)
        from .gate_view import PlanView

        self.query_one(PlanView).show(self.steps)

    def _on_llm_start(self, e: ev.LlmStart) -> None:
        self.llm_log.write(Text(f"--- {e.key} ({e.purpose}) ---", style="bold"))
        self.llm_line = ""
        self.query_one(GatePanel).update(
            Text.assemble(("Asking the LLM: ", "bold"), e.key, (f"  ({self.keys['stop']} cancels the call)", "dim"))
        )

    def _on_llm_delta(self, e: ev.LlmDelta) -> None:
        self.llm_line += e.text
        *lines, self.llm_line = self.llm_line.split("\n")
        for line in lines:
            self.llm_log.write(line)

    def _on_llm_done(self, e: ev.LlmDone) -> None:
        log = self.llm_log
        if self.llm_line:
            log.write(self.llm_line)
            self.llm_line = ""
        log.write(
            Text(f"--- {e.key} answered" + (f" after {e.repairs} repair(s)" if e.repairs else "") + " ---", style="dim")
        )

    def _on_decided(self, e: ev.Decided) -> None:
        """An edit of yours shows in the Kernel tab as a diff against what was proposed."""
        d = e.decision
        if d.get("choice") == "edit" and isinstance(d.get("before"), dict):
            diff = edit_diff(d["before"], d.get("value")) or "(the edit changed nothing)"
            self.query_one("#kernel-view", Static).update(
                Group(
                    Text(f"Your edit at {e.key}, against what was proposed:", style="bold"),
                    Syntax(diff, "diff", theme="ansi_dark", word_wrap=True),
                )
            )

    def _on_finished(self, e: ev.Finished) -> None:
        self._finished({"state": e.state, "error": e.error})

    @staticmethod
    def event_handlers() -> dict[type, Callable[[Any, Any], None]]:
        """Event class -> its handler, made at the first events (the engine has loaded their module)."""
        if not _HANDLERS:
            from ..engine import events as ev

            c = SessionEvents
            _HANDLERS.update(
                {
                    ev.Result: c._on_result,
                    ev.Begin: c._on_begin,
                    ev.SessionChanged: c._on_session,
                    ev.RunStarted: c._on_run,
                    ev.SpaceCounted: c._on_space,
                    ev.RunEnded: c._on_run_end,
                    ev.Paused: c._on_paused,
                    ev.Switched: c._on_switched,
                    ev.Verification: c._on_verification,
                    ev.Note: c._on_note,
                    ev.StepChanged: c._on_step,
                    ev.LlmStart: c._on_llm_start,
                    ev.LlmDelta: c._on_llm_delta,
                    ev.LlmDone: c._on_llm_done,
                    ev.Finished: c._on_finished,
                    ev.Decided: c._on_decided,
                }
            )
        return _HANDLERS

    def _finished(self, d: dict) -> None:
        self.state = d["state"]
        self.gate = None
        text = Text.assemble(("Session ", "bold"), (d["state"], "bold green" if d["state"] == "finished" else "bold"))
        if d.get("error"):
            text.append(f"\n{d['error']}", style="red")
        more = (
            f", {self.keys['switch_strategy']} to go on from the best kernel with another strategy"
            if d["state"] == "finished"
            else f". The {waits_for_gpu(self.sid or '?')}"
            if d["state"] == UNMEASURED
            else ""
        )
        text.append(
            f"\nPress {self.keys['quit']} to quit{more}. `kt-tui sessions` lists it; `kt-tui resume` reopens it."
        )
        self.query_one(GatePanel).update(text)
