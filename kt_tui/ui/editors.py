"""Modal editors for gate values: plain text (a plan, a step, an LLM reply) and a kernel with its
tunable parameters. ctrl+s returns the edit, escape returns None."""

from __future__ import annotations

import tomllib
from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from ..engine.gates import parse_search
from ..tomlfile import dumps
from .confirm import leave_edits
from .cuda_syntax import CudaArea


def _area(text: str, language: str | None, widget_id: str) -> TextArea:
    cls = CudaArea if language == "cuda" else TextArea
    area = cls(text, id=widget_id, show_line_numbers=True, tab_behavior="indent")
    if language != "cuda":
        set_language(area, language)
    return area


def set_language(area: TextArea, language: str | None) -> None:
    """Highlight if that grammar is installed; plain text otherwise."""
    if not language:
        return
    try:
        area.language = language
    except Exception:  # noqa: BLE001 - LanguageDoesNotExist and friends: keep plain text
        area.language = None


class TextEditScreen(ModalScreen[str | None]):
    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("ctrl+s", "save", "Use this", id="editor.save", priority=True),
        Binding("escape", "cancel", "Cancel", id="editor.cancel", priority=True),
    ]

    def __init__(
        self,
        title: str,
        text: str,
        help_text: str = "",
        language: str | None = None,
        check: Callable[[str], str | None] | None = None,
    ) -> None:
        """check: the problem with a text (shown here, the screen stays open), None when it is fine."""
        super().__init__()
        self.title_text, self.text, self.help_text, self.language = title, text, help_text, language
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(classes="editor"):
            yield Static(Text.assemble((self.title_text, "bold"), "\n", (self.help_text, "dim")))
            yield _area(self.text, self.language, "edit-text")
            yield Static(id="edit-error")
        yield Footer()

    def on_mount(self) -> None:
        self.loaded = self.query_one(TextArea).text  # as the area holds it (mixed line ends made one)
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        text = self.query_one("#edit-text", TextArea).text
        problem = self.check(text) if self.check else None
        if problem:
            self.query_one("#edit-error", Static).update(Text(problem, style="bold red"))
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        leave_edits(self, self.query_one("#edit-text", TextArea).text != self.loaded, lambda: self.dismiss(None))


def tune_params_text(tune_params: dict) -> str:
    return dumps(tune_params)


class KernelEditScreen(ModalScreen[dict | None]):
    """Edit the generated kernel and its tunable parameters (TOML: name = [values])."""

    CSS_PATH = "modal.tcss"
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # short: the whole screen, the code gets most of it

    BINDINGS = [
        Binding("ctrl+s", "save", "Use this kernel", id="editor.save", priority=True),
        Binding("f6", "other_area", "Code/parameters", id="editor.other", priority=True),  # tab indents in both
        Binding("escape", "cancel", "Cancel", id="editor.cancel", priority=True),
    ]

    def __init__(self, code: str, tune_params: dict, restrictions: list[str]) -> None:
        super().__init__()
        self.code, self.tune_params, self.restrictions = code, tune_params, restrictions
        self.params_text = tune_params_text(tune_params) + dumps({"restrict": restrictions})

    def compose(self) -> ComposeResult:
        with Vertical(classes="editor"):
            yield Static(
                Text.assemble(
                    ("Edit the kernel", "bold"),
                    ("  (tab indents; ctrl+s uses it, escape cancels; f6 or a click goes to the parameters)", "dim"),
                    no_wrap=True,
                    overflow="ellipsis",
                )
            )
            yield _area(self.code, "cuda", "edit-code")
            yield Static(
                Text('Tunable parameters (name = [values]) and restrictions (restrict = ["..."])', no_wrap=True),
                classes="edit-label",
            )
            yield _area(self.params_text, "toml", "edit-params")
            yield Static(id="edit-error")
        yield Footer()

    def on_mount(self) -> None:
        self.loaded = (self.query_one("#edit-code", TextArea).text, self.query_one("#edit-params", TextArea).text)
        self.query_one("#edit-code", TextArea).focus()

    def action_save(self) -> None:
        try:
            data = tomllib.loads(self.query_one("#edit-params", TextArea).text)
        except (tomllib.TOMLDecodeError, RecursionError) as e:
            self.query_one("#edit-error", Static).update(Text(f"parameters: {e}", style="bold red"))
            return
        restrictions = data.pop("restrict", [])
        bad = [k for k, v in data.items() if not isinstance(v, list) or not v]
        if bad:
            self.query_one("#edit-error", Static).update(
                Text(f"{bad[0]}: give a non-empty list of values", style="bold red")
            )
            return
        self.dismiss(
            {"code": self.query_one("#edit-code", TextArea).text, "tune_params": data, "restrictions": restrictions}
        )

    def action_other_area(self) -> None:
        code = self.query_one("#edit-code", TextArea)
        (self.query_one("#edit-params", TextArea) if code.has_focus else code).focus()

    def action_cancel(self) -> None:
        changed = (
            self.query_one("#edit-code", TextArea).text,
            self.query_one("#edit-params", TextArea).text,
        ) != self.loaded
        leave_edits(self, changed, lambda: self.dismiss(None), "your changes to the kernel")


def search_problem(text: str) -> str | None:
    try:
        parse_search(text)
    except ValueError as e:
        return str(e)
    return None
