"""The gate for a launch spec the LLM drafted: its changes to the heuristic draft, then approve
(save it), edit (put it in the editor) or skip (keep the editor as it was)."""

from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from .confirm import Scroll


class SpecDraftGate(ModalScreen[str]):
    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("a", "choose('approve')", "Approve (save it)", id="approve"),
        Binding("e", "choose('edit')", "Edit it", id="edit"),
        Binding("s,escape", "choose('skip')", "Skip (keep the editor's)", id="skip"),
    ]

    def __init__(self, kernel_name: str, changes: str) -> None:
        super().__init__()
        self.kernel_name, self.changes = kernel_name, changes

    def compose(self) -> ComposeResult:
        with Vertical(id="draft-gate"):
            yield Static(
                Text.assemble(
                    ("Decide: ", "bold"),
                    f"the LLM's launch spec for {self.kernel_name} (checked; changes to the heuristic draft)",
                ),
                id="draft-title",
            )
            with Scroll():
                yield Static(
                    Syntax(self.changes, "diff", word_wrap=True)
                    if self.changes
                    else Text("no changes to the heuristic draft", style="dim"),
                    id="draft-diff",
                )
            yield Static(
                "a approve: save it and go on   e edit: put it in the editor   s skip: keep the editor's",
                id="draft-keys",
            )
        yield Footer()

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
