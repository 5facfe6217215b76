"""The session screen's keys: which apply now, and what each does. A mixin of SessionScreen,
which owns the state these read."""

from __future__ import annotations

from textual.widgets import TabbedContent

from ..engine.events import Decision
from ..engine.gates import KernelGate
from .bridge import GateOpened
from .export_screen import ExportScreen
from .gate_view import view_for
from .keys import HelpScreen, help_text
from .report_screen import start_sanitizer
from .settings_screen import SettingsScreen
from .strategy_picker import StrategyPicker
from .widgets import GatePanel, ResultsTable


class SessionActions:
    # -- keys ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        choices = self.gate.choices if (self.gate and self.bridge.waiting) else ()
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
            return (isinstance(self.gate, KernelGate) and self.bridge.waiting
                    and not (self.choice and self.choice.simulated))
        return True

    def _decide(self, choice: str, value=None) -> None:
        if self.bridge.answer(Decision(choice, value)):
            self.gate = None
            self.query_one(ResultsTable).mark_candidate(None)
            self.query_one(GatePanel).update(f"{choice}: going on…")
            self.refresh_bindings()

    def action_start(self) -> None:
        self._decide("approve")

    def action_skip(self) -> None:
        self._decide("skip")

    def action_retry(self) -> None:
        self._decide("retry")

    def action_stop(self) -> None:
        self.autopilot = False
        if self.bridge.waiting:
            self._decide("stop")
        elif self.engine is not None and self.state == "running":
            self.engine.request_stop()  # also cancels an LLM call in flight: its gate opens next
            self.notify("Stopping after the current configuration (an LLM call in flight is cancelled).")

    def action_pause(self) -> None:
        if self.engine is not None:
            self.engine.pause(not self.paused)
            self.notify(f"Paused after the current configuration; {self.keys['pause']} resumes." if not self.paused
                        else "Resumed.", markup=False)

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
            if name and gate is None and self.state == "finished":  # go on with a finished session
                self.store.update_session(self.sid, strategy=name, state="stopped")
                self.store.add_event(self.sid, "switched", {"strategy": name, "after": "finished"})
                self.state, self.strategy = "starting", name
                self._banner()
                self._engine_thread()
            elif name and self.gate is gate:
                self._decide("switch", name)
        self.app.push_screen(StrategyPicker(self.store.session(self.sid)["strategy"]), chosen)

    def action_settings(self) -> None:
        def apply(values: dict | None) -> None:
            if values:
                for k, v in values.items():
                    setattr(self.settings, k, v)
                if self.engine is not None:
                    self.engine.options.update(values)
                self.notify("Settings applied from the next decision on.")
        self.app.push_screen(SettingsScreen(self.settings.strategy_options(), self.strategy), apply)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(help_text(self.BINDINGS, self.settings.keys or {})))

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
        self.notify(f"sorted by {nxt.removeprefix('p:')}", timeout=2)

    def action_reverse(self) -> None:
        table = self.query_one(ResultsTable)
        table.sort_by(table.sort_index or "time", not table.sort_reverse)

    def action_sanitize(self, tool: str) -> None:
        start_sanitizer(self, tool)

    def action_export(self) -> None:
        if self.sid is None:
            self.notify("nothing to export yet: the session has not started", severity="warning")
            return
        self.app.push_screen(ExportScreen(self.store, self.sid))

    def action_quit_session(self) -> None:
        self.shutdown()
        if getattr(self.app, "browse", False):
            self.app.pop_screen()
        else:
            self.app.exit()

    def shutdown(self) -> None:
        self.bridge.close()
        if self.engine is not None:
            self.engine.llm_cancel.set()  # the engine thread leaves an LLM call at once
        if self.gpu is not None:
            self.gpu.shutdown()
        if self.sid:
            self.store.unlock(self.sid)
