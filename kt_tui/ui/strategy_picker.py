"""Switch the session's strategy at the pending gate: the new one goes on from the current best kernel."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from ..engine.registry import UnknownStrategy, describe, registered
from .confirm import Choices


def strategies() -> list[tuple[str, str, bool]]:
    """(name, what it does or why it cannot load, usable) of every strategy. Reading the installed
    packages' entry points takes a second on a busy machine: the session screen calls this on a
    thread while the user reads the first gate, and the picker opens with what it found."""
    global _FOUND
    if _FOUND is None:
        found = []
        for name in registered():
            try:
                found.append((name, describe(name), True))
            except UnknownStrategy as e:  # a broken plugin is listed, not offered
                found.append((name, str(e), False))
        _FOUND = found
    return _FOUND


_FOUND: list[tuple[str, str, bool]] | None = None


class StrategyPicker(ModalScreen[str | None]):
    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="picker.cancel")]

    def __init__(self, current: str) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        options = []
        for name, about, usable in strategies():
            if not usable:
                options.append(Option(Text(f"{name}: {about}", style="dim"), id=name, disabled=True))
                continue
            mark = "  (now)" if name == self.current else ""
            options.append(Option(Text.assemble((name, "bold"), mark, "\n  ", (about, "dim")), id=name))
        with Vertical(classes="picker"):
            yield Static(
                Text.assemble(
                    ("Switch strategy", "bold"),
                    "\nThe new strategy starts at once and goes on "
                    "from the current best kernel; `kt-tui resume` runs it from then on.",
                )
            )
            yield Choices(*options, id="strategies")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id if event.option.id != self.current else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
