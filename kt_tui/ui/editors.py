"""Modal editors for gate values: plain text (a plan, a step, an LLM reply) and a kernel with its
tunable parameters. ctrl+s returns the edit, escape returns None."""

from __future__ import annotations

import json
import tomllib
from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea

from ..engine.strategies.sweep import parse_search
from .cuda_syntax import use_cuda


def _area(text: str, language: str | None, widget_id: str) -> TextArea:
    area = TextArea(text, id=widget_id, show_line_numbers=True, tab_behavior="indent")
    if language == "cuda" and use_cuda(area):
        return area
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
    BINDINGS = [Binding("ctrl+s", "save", "Use this", id="editor.save", priority=True),
                Binding("escape", "cancel", "Cancel", id="editor.cancel", priority=True)]

    def __init__(self, title: str, text: str, help_text: str = "", language: str | None = None,
                 check: Callable[[str], str | None] | None = None) -> None:
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
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        text = self.query_one("#edit-text", TextArea).text
        problem = self.check(text) if self.check else None
        if problem:
            self.query_one("#edit-error", Static).update(Text(problem, style="bold red"))
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


def tune_params_text(tune_params: dict) -> str:
    return "".join(f"{k} = {json.dumps(v)}\n" for k, v in tune_params.items())


class KernelEditScreen(ModalScreen[dict | None]):
    """Edit the generated kernel and its tunable parameters (TOML: name = [values])."""

    BINDINGS = [Binding("ctrl+s", "save", "Use this kernel", id="editor.save", priority=True),
                Binding("escape", "cancel", "Cancel", id="editor.cancel", priority=True)]

    def __init__(self, code: str, tune_params: dict, restrictions: list[str]) -> None:
        super().__init__()
        self.code, self.tune_params, self.restrictions = code, tune_params, restrictions

    def compose(self) -> ComposeResult:
        with Vertical(classes="editor"):
            yield Static(Text.assemble(("Edit the kernel", "bold"),
                                       ("  (tab indents; ctrl+s uses it, escape cancels; click the parameters "
                                        "below to edit them)", "dim")))
            yield _area(self.code, "cuda", "edit-code")
            yield Static("Tunable parameters (name = [values]) and restrictions (restrict = [\"...\"])", markup=False)
            text = tune_params_text(self.tune_params) + f"restrict = {json.dumps(self.restrictions)}\n"
            yield _area(text, "toml", "edit-params")
            yield Static(id="edit-error")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#edit-code", TextArea).focus()

    def action_save(self) -> None:
        try:
            data = tomllib.loads(self.query_one("#edit-params", TextArea).text)
        except tomllib.TOMLDecodeError as e:
            self.query_one("#edit-error", Static).update(Text(f"parameters: {e}", style="bold red"))
            return
        restrictions = data.pop("restrict", [])
        bad = [k for k, v in data.items() if not isinstance(v, list) or not v]
        if bad:
            self.query_one("#edit-error", Static).update(Text(f"{bad[0]}: give a non-empty list of values",
                                                              style="bold red"))
            return
        self.dismiss({"code": self.query_one("#edit-code", TextArea).text, "tune_params": data,
                      "restrictions": restrictions})

    def action_cancel(self) -> None:
        self.dismiss(None)


def gate_editor(gate) -> ModalScreen:
    """The editor for a gate's value; what it returns is the gate's edit decision."""
    b = gate.body
    if gate.kind == "kernel":
        return KernelEditScreen(b["code"], b["tune_params"], b.get("restrictions", []))
    if gate.kind == "plan":
        return TextEditScreen("Edit the plan", b.get("text", ""), "One step per numbered line, its description "
                              "indented below. Delete, reorder, reword or add steps.")
    if gate.kind == "configs":
        return TextEditScreen("Configurations to benchmark", b.get("text", ""), "One JSON object per line; each "
                              "is checked against the space again.", language="json")
    if gate.kind == "sweep":
        return TextEditScreen("Search settings for this run", b.get("text", ""), "search: kt, brute_force or a "
                              "kernel_tuner strategy; max_configs / time_limit_s: the budget (0: none); seeds: "
                              "heuristic seeds first.", language="toml", check=_search_problem)
    if gate.kind == "step" and b.get("prompt"):
        return TextEditScreen("Edit the step's prompt", b["prompt"], "What the LLM is asked for this step; "
                              "{kernel_string} stands for the current best kernel.")
    if gate.kind == "step":
        return TextEditScreen("Edit the step", f"{gate.title.split(': ', 1)[-1]}\n{b.get('description', '')}",
                              "First line: the title; then the description.")
    problems = "".join(f"\n- {p}" for p in b.get("problems") or [])
    return TextEditScreen("Write the answer yourself", b.get("text") or b.get("example", ""),
                          "JSON in the shape of the example" + (f". Problems with this text:{problems}" if problems
                                                                else ""), language="json")


def _search_problem(text: str) -> str | None:
    try:
        parse_search(text)
    except ValueError as e:
        return str(e)
    return None
