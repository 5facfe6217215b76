"""The session screen's keys: which apply now, and what each does. A mixin of SessionScreen,
which owns the state these read."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Input, TabbedContent

from ..errors import UserError
from . import prefs
from .bridge import GateOpened
from .confirm import AskScreen
from .keys import CHOICE_IDS, HelpScreen, help_text
from .status import FILTER_HINT, FilterInput
from .widgets import GatePanel, ResultsTable

DESTRUCTIVE = ("skip", "stop")  # a decision held UNDO_S seconds before the engine gets it; u takes it back


UNDO_DEFAULT = 3.0  # tests set 0: a skip or stop goes at once


def undo_seconds() -> float:
    try:
        return max(0.0, float(os.environ.get("KT_TUI_UNDO_S", UNDO_DEFAULT)))
    except ValueError:
        return UNDO_DEFAULT


if TYPE_CHECKING:
    from ..engine.gates import Decision, Gate
    from .session_shape import SessionShape as _Screen
else:
    _Screen = object


# Imported where used: the engine's gates and their views (gate_view.py), loaded with the first gate,
# after the first frame.


def _answers(gate: Gate) -> dict[str, str]:
    from .gate_view import answers  # here: a gate is open, so the engine has loaded the gates it views

    return answers(gate)


class SessionActions(_Screen):
    # -- keys ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "undo":
            return self.held is not None
        choices = _answers(self.gate) if (self.gate and self.bridge.waiting and self.held is None) else {}
        wanted = {"start": "approve", "edit": "edit", "skip": "skip", "retry": "retry"}.get(action)
        # False hides a key from the footer: it shows only what applies now
        if wanted:
            return wanted in choices
        if action == "stop":
            return bool(choices) or self.state == "running"
        if action == "pause":
            return self.state == "running" and self.run_info.get("kind") == "tune" and not self.bridge.waiting
        if action == "switch_strategy":
            return bool(choices) or self.state == "finished"
        if action == "approve_all":
            return not self.autopilot and self.state not in ("finished", "error")
        if action == "sanitize":  # a sanitizer needs a GPU: never in a simulated session
            if self.gate is None:
                return False
            from ..engine.gates import KernelGate

            return (
                isinstance(self.gate, KernelGate)
                and self.bridge.waiting
                and not (self.choice and self.choice.simulated)
            )
        return True

    def footer_labels(self) -> dict[str, str]:
        """action -> its name at the open gate ("Accept", "Reject"), for the footer."""
        if not (self.gate and self.bridge.waiting):
            return {}
        return {CHOICE_IDS[c]: label[:1].upper() + label[1:] for c, label in _answers(self.gate).items()}

    def _decide(self, choice: str, value=None, by: str = "user", why: str | None = None) -> None:
        """Answer the open gate. A skip or stop of yours waits UNDO_S seconds, undoable, before
        the engine gets it: until then nothing has run on it."""
        from ..engine.gates import Decision  # loaded with the gate

        gate = self.gate
        if self.held is not None or gate is None or not self.bridge.waiting:
            return
        delay = undo_seconds() if by == "user" and choice in DESTRUCTIVE else 0.0
        if delay:
            timer = self.set_timer(delay, self._send_held)
            self.held = (gate, Decision(choice, value, by=by, why=why), timer)
            self.query_one(GatePanel).update(
                Text.assemble(
                    (f"{choice}: ", "bold"),
                    f"{gate.title}\n",
                    (f"[{self.keys['undo']}] undoes it", "bold yellow"),
                    f" (sent in {delay:.0f} s)",
                )
            )
            self.refresh_bindings()
            return
        self._send(Decision(choice, value, by=by, why=why))

    def _send(self, decision: Decision) -> None:
        named = self.gate.choice_name(decision.choice) if self.gate is not None else decision.choice  # reject, not skip
        if self.bridge.answer(decision):
            self.gate = None
            self.query_one(ResultsTable).mark_candidate(None)
            self.query_one(GatePanel).update(f"{named}: going on…")
            self.refresh_bindings()

    def _send_held(self) -> None:
        held, self.held = self.held, None
        if held is not None:
            self._send(held[1])

    def action_undo(self) -> None:
        held, self.held = self.held, None
        if held is None:
            return
        held[2].stop()
        self.notify(f"{held[1].choice} undone", timeout=2)
        self.on_gate_opened(GateOpened(held[0]))

    def _confirmed(self, question: str, then) -> None:
        """Act at once from the gate panel; from any other widget (a table, a tab) ask first."""
        if isinstance(self.focused, GatePanel):
            then()
            return
        self.app.push_screen(AskScreen(question), lambda yes: then() if yes else None)

    def action_start(self) -> None:
        self._decide("approve")

    def action_skip(self) -> None:
        gate = self.gate
        what = "Reject" if gate is not None and gate.kind == "accept" else "Skip"
        self._confirmed(f"{what}: {gate.title if gate else 'this'}?", lambda: self._decide("skip"))

    def action_retry(self) -> None:
        self._decide("retry")

    def action_stop(self) -> None:
        if self.bridge.waiting:
            self._confirmed("Stop the session here? (kt-tui resume goes on from this gate)", self._stop_now)
        elif self.engine is not None and self.state == "running":
            self._confirmed("Stop this run after the current configuration?", self._stop_now)

    def _stop_now(self) -> None:
        self.autopilot = False
        if self.bridge.waiting:
            self._decide("stop")
        elif self.engine is not None and self.state == "running":
            self.engine.request_stop()  # also cancels an LLM call in flight: its gate opens next
            self.stopping = True
            self._show_progress()
            self.notify("Stopping after the current configuration (an LLM call in flight is cancelled).")

    def action_pause(self) -> None:
        if self.engine is not None:
            self.engine.pause(not self.paused)
            self.notify(
                f"Paused after the current configuration; {self.keys['pause']} resumes."
                if not self.paused
                else "Resumed.",
                markup=False,
            )

    def action_approve_all(self) -> None:
        """Autopilot: this gate and every later one are decided by the --auto policy."""
        self.autopilot = True
        self.notify("Autopilot: the remaining gates are decided like `kt-tui run --auto` would.")
        if self.gate and self.bridge.waiting:
            self.on_gate_opened(GateOpened(self.gate))

    def action_edit(self) -> None:
        gate = self.gate
        if not gate or "edit" not in gate.choices:
            return

        from .gate_view import view_for

        editor = view_for(gate).editor
        if editor is None:
            return

        def done(value) -> None:
            if value is not None and self.gate is gate:
                self._decide("edit", value)

        self.app.push_screen(editor(gate), done)

    def action_switch_strategy(self) -> None:
        gate = self.gate

        def chosen(name: str | None) -> None:
            if name and gate is None and self.state == "finished" and self.engine is not None:  # go on, finished
                self.engine.switch_finished(name)
                self.state, self.strategy = "starting", name
                self._banner()
                self._engine_thread()
            elif name and self.gate is gate:
                self._decide("switch", name)

        from .strategy_picker import StrategyPicker  # here: a modal the first frame does without

        self.app.push_screen(StrategyPicker(self.data.session()["strategy"]), chosen)

    def action_settings(self) -> None:
        def apply(values: dict | None) -> None:
            if values:
                if self.engine is not None:
                    self.engine.change_options(values)
                self.notify("Settings applied from the next decision on.")

        from .settings_screen import SettingsScreen  # here: a modal the first frame does without

        values = dict(self.engine.options) if self.engine is not None else self._options()
        self.app.push_screen(SettingsScreen(values, self.strategy), apply)

    def _options(self) -> dict:
        """Before the engine runs: the options the strategy will start with (config file and flags)."""
        from ..engine.registry import strategy_options  # here: it loads pydantic models of the strategies

        s = self.settings
        try:
            return strategy_options(
                self.strategy, s.table_for(self.strategy), defaults=s.strategy_defaults, given=s.strategy_flags
            )
        except UserError:  # refused before the session opened; here only the defaults are shown
            return {}

    def action_help(self) -> None:
        gate = self.gate if self.bridge.waiting else None
        self.app.push_screen(
            HelpScreen(help_text(self.BINDINGS, self.settings.keys or {}, gate, _answers(gate) if gate else None))
        )

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = f"tab-{tab}"

    def action_toggle_source(self) -> None:
        self.show_original = not self.show_original
        self._show_source()

    def action_sort(self) -> None:
        table = self.query_one(ResultsTable)
        cols = table.sortable
        nxt = cols[(cols.index(table.sort_index) + 1) % len(cols)] if table.sort_index in cols else "time"
        table.sort_by(nxt, False)
        self._show_progress()

    def on_input_changed(self, event: Input.Changed) -> None:
        if isinstance(event.input, FilterInput):
            self.table.set_filter(event.value)
            self._show_progress()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if isinstance(event.input, FilterInput):
            if not event.value.strip():
                event.input.remove_class("-shown")
            self.table.focus()

    def _running_text(self) -> Text:
        run = self.run_info
        what = f"{run.get('kind') or 'run'} of {self.table.labels.get(run.get('version'), 'the kernel')}"
        if self.paused:
            keys = f"[{self.keys['pause']}] resumes, [{self.keys['stop']}] stops"
            return Text.assemble(("Paused ", "bold yellow"), what, "\n", (keys, "bold"))
        keys = f"[{self.keys['stop']}] stop after the current configuration, [{self.keys['pause']}] pause"
        return Text.assemble(("Running ", "bold"), what, "\n", (keys, "bold"))

    def _pane(self, shown: bool | None) -> None:
        """The source pane: shown, hidden, or (None) as the width has it."""
        self.set_class(shown is True, "-source-shown")
        self.set_class(shown is False, "-source-hidden")

    def action_toggle_pane(self) -> None:
        shown = self.query_one("#left").display
        self._pane(not shown)
        prefs.save(source_pane=not shown)

    async def action_filter(self) -> None:
        """The filter box, made the first time it opens: the first frame does without it."""
        boxes = self.query("#filter")
        box = boxes.first() if boxes else FilterInput(placeholder=FILTER_HINT, id="filter")
        if not boxes:
            await self.query_one("#tab-results").mount(box, before=self.query_one(ResultsTable))
        box.add_class("-shown")
        self.query_one(TabbedContent).active = "tab-results"
        box.focus()

    def action_reverse(self) -> None:
        table = self.query_one(ResultsTable)
        table.sort_by(table.sort_index or "time", not table.sort_reverse)
        self._show_progress()

    def action_sanitize(self, tool: str) -> None:
        from .report_screen import start_sanitizer  # here: a modal the first frame does without

        start_sanitizer(self, tool)

    def action_export(self) -> None:
        if self.sid is None:
            self.notify("nothing to export yet: the session has not started", severity="warning")
            return
        from .export_screen import ExportScreen  # here: the exporter loads with its modal

        self.app.push_screen(ExportScreen(self.store, self.sid))

    def action_quit_session(self) -> None:
        if self.held is not None:  # a skip or stop waiting out its undo: it was meant
            self.held[2].stop()
            self._send_held()
        self.shutdown()
        if getattr(self.app, "browse", False):
            self.app.pop_screen()
        elif self.problem:  # the session could not go on: the shell gets status 2 and the reason
            self.app.exit(return_code=2, message=Text(f"kt-tui: {self.problem}"))
        else:
            self.app.exit()

    def shutdown(self) -> None:
        self.bridge.close()
        if self.engine is not None:
            self.engine.llm_cancel.set()  # the engine thread leaves an LLM call at once
        if self.gpu is not None:
            self.gpu.shutdown()
        if self.sid:
            self.data.unlock()
