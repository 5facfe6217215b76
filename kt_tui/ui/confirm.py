"""A yes/no question before a destructive choice taken away from the gate panel."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static

# j/k and g/G move in every list and table, as in lazygit, k9s and htop (the arrows, page and home/end
# keys too, as Textual has them): no movement key is ever a decision
MOVE_KEYS: list[BindingType] = [
    Binding("j", "cursor_down", "Down", show=False),
    Binding("k", "cursor_up", "Up", show=False),
    Binding("g", "scroll_top", "First row", show=False),
    Binding("G", "scroll_bottom", "Last row", show=False),
]
# the same keys in a view that scrolls (a page of text, a log), beside Textual's arrows and home/end
SCROLL_KEYS: list[BindingType] = [
    Binding("j", "scroll_down", "Scroll down", show=False),
    Binding("k", "scroll_up", "Scroll up", show=False),
    Binding("g", "scroll_home", "Top", show=False),
    Binding("G", "scroll_end", "Bottom", show=False),
]


class Scroll(VerticalScroll):
    """A VerticalScroll that j/k and g/G move too."""

    BINDINGS = SCROLL_KEYS


class Choices(OptionList):
    """An OptionList (a picker's) that j/k and g/G move in too."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "first", "First", show=False),
        Binding("G", "last", "Last", show=False),
    ]


class AskScreen(ModalScreen[bool]):
    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="confirm"):
            yield Static(Text.assemble((self.question, "bold"), "\n\n[y] yes   [n] no"), id="confirm-text")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def leave_edits(screen, changed: bool, leave, what: str = "your changes") -> None:
    """`leave` at once when nothing was changed; else after a yes to discarding them (n or escape
    goes back to the editor, the text as it was left)."""
    if not changed:
        leave()
        return
    screen.app.push_screen(
        AskScreen(f"Discard {what}? [y] throws them away, [n] goes back to them."), lambda yes: leave() if yes else None
    )
