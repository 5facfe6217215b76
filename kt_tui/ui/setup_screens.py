"""Screens before a session starts: pick the kernel, write or fix its launch spec."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, cast

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from ..config import Settings
from ..engine.precheck import compile_spec
from ..errors import UserError
from ..kernel.draft import draft_spec
from ..kernel.source import Kernel
from ..kernel.spec import Spec, SpecError, dump_spec, parse_spec
from ..words import counted
from .confirm import Choices, leave_edits
from .cuda_syntax import CudaArea
from .editors import set_language
from .spec_draft import SpecDraftGate
from .widgets import FitFooter


class HasSettings(Protocol):
    """What the spec screen reads of the app (ui/app.py: KtApp)."""

    settings: Settings


class KernelPickScreen(Screen[str]):
    """The file has several __global__ kernels: which one?"""

    CSS_PATH = "modal.tcss"

    BINDINGS = [Binding("escape", "cancel", "Quit", id="cancel")]

    def __init__(self, path: Path, kernels: list[Kernel]) -> None:
        super().__init__()
        self.path, self.kernels = path, kernels

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(
            f"{self.path} has {counted(len(self.kernels), 'kernel')}. Which one do you want to tune?", id="pick-title"
        )
        yield Choices(
            *[
                Option(f"{k.name}({', '.join(p.name for p in k.params)})  line {k.line}", id=k.name)
                for k in self.kernels
            ],
            id="kernels",
        )
        yield Footer()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.app.exit(return_code=1)


class SpecEditScreen(Screen[Spec]):
    """Edit the launch spec as TOML beside the kernel source; checked against the kernel before it is
    saved, and on ctrl+k (spec and an offline compile) without saving."""

    CSS_PATH = "modal.tcss"

    BINDINGS = [
        Binding("ctrl+s", "save", "Save and continue", id="save", priority=True),
        Binding("ctrl+k", "check", "Check (no save)", id="check_spec", priority=True),
        Binding("ctrl+l", "llm_draft", "Draft with the LLM", id="llm_draft", priority=True),
        Binding("escape", "cancel", "Quit without saving", id="cancel", priority=True),  # one escape, from the text too
    ]

    def __init__(
        self, text: str, path: Path, kernel: Kernel, note: str = "", error: str = "", source: str = ""
    ) -> None:
        super().__init__()
        self.text, self.path, self.kernel, self.note, self.error = text, path, kernel, note, error
        self.source = source

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical():
            yield Static(
                Text.assemble((f"Launch spec for {self.kernel.name}", "bold"), f"  →  {self.path}\n", self.note),
                id="spec-note",
            )
            area = TextArea(self.text, id="spec-text", show_line_numbers=True, tab_behavior="indent")
            set_language(area, "toml")
            if self.source:
                with Horizontal(id="spec-panes"):
                    yield area
                    kernel = CudaArea(self.source, id="spec-source", read_only=True, show_line_numbers=True)
                    yield kernel
            else:
                yield area
            yield Static(id="spec-error")
        yield FitFooter(show_command_palette=False)  # esc's name stays at 80 columns; ctrl+p still opens it

    def on_mount(self) -> None:
        self._show_error(self.error)
        self.loaded = self.query_one("#spec-text", TextArea).text  # as the area holds it (line ends made one)
        self.query_one("#spec-text", TextArea).focus()

    def _show_error(self, message: str) -> None:
        self.query_one("#spec-error", Static).update(
            Text(message, style="bold red")
            if message
            else Text(
                "ctrl+s checks the spec, saves it and starts; "
                "ctrl+k checks it and compiles the kernel without saving; "
                "ctrl+l drafts it with the LLM",
                style="dim",
            )
        )

    def action_check(self) -> None:
        try:
            spec = parse_spec(self.query_one("#spec-text", TextArea).text, self.kernel, self.path)
        except SpecError as e:
            self._show_error(str(e))
            return
        self.query_one("#spec-error", Static).update(Text("spec ok; compiling...", style="dim"))
        self._compile(spec)

    @work(thread=True, exclusive=True, group="spec-check")
    def _compile(self, spec: Spec) -> None:
        result = compile_spec(self.source, spec)
        if result.ok:
            message = Text(f"spec ok, compiles at {spec.baseline_params()} (not saved)", style="bold green")
        elif result.ok is None:
            message = Text(f"spec ok; not compiled: {result.reason}", style="yellow")
        else:
            first = result.errors[0] if result.errors else None
            where = f"line {first.line}: " if first and first.line else ""
            message = Text(
                f"spec ok, the kernel does not compile: {where}{first.text if first else result.reason}",
                style="bold red",
            )
        self.app.call_from_thread(self.query_one("#spec-error", Static).update, message)

    def action_llm_draft(self) -> None:
        self.query_one("#spec-error", Static).update(Text("asking the LLM for a draft...", style="dim"))
        self._llm_draft()

    @work(thread=True, exclusive=True, group="spec-llm")
    def _llm_draft(self) -> None:
        from ..llm import spec_draft as spec_llm  # here: openai loads only when a draft is asked for
        from ..llm.client import LlmClient  # here: openai loads only when a draft is asked for

        heuristic = dump_spec(draft_spec(self.kernel, src=self.source))
        try:
            drafted = spec_llm.ask(
                LlmClient.from_settings(cast(HasSettings, self.app).settings),
                self.source,
                self.kernel,
                heuristic,
                compile_spec,
            )
        except UserError as e:
            self.app.call_from_thread(self._show_error, f"no LLM draft: {e}")
            return
        self.app.call_from_thread(self._show_draft, drafted, spec_llm.diff(heuristic, drafted))

    def _show_draft(self, drafted: str, changes: str) -> None:
        def decided(choice: str | None) -> None:
            if choice == "skip" or choice is None:
                self._show_error("")
                return
            self.query_one("#spec-text", TextArea).text = drafted
            if choice == "approve":
                self.action_save()
            else:
                self.query_one("#spec-error", Static).update(Text("the LLM's draft: edit it, then ctrl+s", style="dim"))
                self.query_one("#spec-text", TextArea).focus()

        self._show_error("")
        self.app.push_screen(SpecDraftGate(self.kernel.name, changes), decided)

    def action_save(self) -> None:
        text = self.query_one("#spec-text", TextArea).text
        try:
            spec = parse_spec(text, self.kernel, self.path)
        except SpecError as e:
            self._show_error(str(e))
            return
        try:
            self.path.write_text(text, encoding="utf-8")
        except OSError as e:
            self._show_error(f"cannot save {self.path}: {e}")
            return
        self.dismiss(spec)

    def action_cancel(self) -> None:
        leave_edits(
            self,
            self.query_one("#spec-text", TextArea).text != self.loaded,
            lambda: self.app.exit(return_code=1, message="spec not saved; nothing was run"),
            "your changes to the spec",
        )
