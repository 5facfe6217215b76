"""The strategy knobs, changed while a session runs: they apply from the next decision on."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static, Switch

KNOBS = (("with_replanning", "ask for a new plan when the steps run out", bool),
         ("max_replanning", "new plans at most", int),
         ("breakdown_steps", "let the LLM break a step into smaller ones", bool),
         ("max_breakdowns", "levels of breakdown", int),
         ("threshold", "accept a kernel at least this fraction faster", float))


class SettingsScreen(ModalScreen[dict | None]):
    BINDINGS = [Binding("ctrl+s", "save", "Apply", id="settings.save", priority=True),
                Binding("escape", "cancel", "Cancel", id="settings.cancel")]

    def __init__(self, values: dict) -> None:
        super().__init__()
        self.values = values

    def compose(self) -> ComposeResult:
        with Vertical(classes="editor settings"):
            yield Static("Autonomous strategy settings (ctrl+s applies them from the next decision on)")
            with Grid(id="knobs"):
                for name, help_text, kind in KNOBS:
                    yield Label(f"{name}\n[dim]{help_text}[/]")
                    value = self.values.get(name)
                    yield Switch(bool(value), id=name) if kind is bool else Input(str(value), id=name)
            yield Static(id="settings-error")
        yield Footer()

    def action_save(self) -> None:
        out = {}
        for name, _, kind in KNOBS:
            widget = self.query_one(f"#{name}")
            try:
                out[name] = widget.value if kind is bool else kind(widget.value)
            except ValueError:
                self.query_one("#settings-error", Static).update(f"[red]{name}: expected a {kind.__name__}[/]")
                return
        self.dismiss(out)

    def action_cancel(self) -> None:
        self.dismiss(None)
