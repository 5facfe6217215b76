"""The session screen's parts. They display what they are given; the screen owns the state."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pygments.lexer import Lexer
from pygments.token import Comment, Keyword, Name, Number, String, _TokenType
from pygments.token import Text as Plain
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Footer, Static
from textual.widgets._footer import FooterKey

from ..kernel.syntax import highlights
from ..words import counted
from .results import STATUS_STYLE, ResultsTable  # noqa: F401 - the screen imports its parts from here

if TYPE_CHECKING:
    from ..engine.backend import BackendChoice
    from ..kernel.spec import Spec


class DrawnOnce:
    """A renderable drawn once per width and kept. Rich's Syntax runs its lexer over the whole
    source at each draw, and Textual draws the source pane to measure it, to show it, and again
    under each modal screen."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self.drawn: dict[tuple, list[Segment]] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = (options.max_width, options.min_width, options.height, options.no_wrap, options.overflow)
        if key not in self.drawn:
            self.drawn.clear()
            self.drawn[key] = list(console.render(self.renderable, options))
        yield from self.drawn[key]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.renderable)


_TOKENS = {
    "comment": Comment,
    "string": String,
    "number": Number,
    "keyword": Keyword,
    "type.builtin": Keyword.Type,
    "variable.builtin": Name.Builtin,
    "function.call": Name.Function,
}


class CudaLexer(Lexer):
    """Pygments' side of kernel/syntax.py's lexer, the one the editors colour with (cuda_syntax.py):
    Pygments' own CUDA lexer compiles its ~100 regexes at its first use, ~15 ms before the first frame."""

    name = "CUDA (kt-tui)"

    def get_tokens_unprocessed(self, text: str) -> Iterator[tuple[int, _TokenType, str]]:
        rows = text.split("\n")
        starts = [0]
        for line in rows:
            starts.append(starts[-1] + len(line) + 1)
        at = 0
        for row, start, end, name in highlights(text):
            line = rows[row]
            if line.isascii():
                a, b = start, len(line) if end is None else end
            else:  # highlights() counts UTF-8 bytes, as an editor does
                raw = line.encode()
                a = len(raw[:start].decode(errors="ignore"))
                b = len(line) if end is None else len(raw[:end].decode(errors="ignore"))
            a, b = starts[row] + a, starts[row] + b
            if a < at or b <= a:
                continue
            if a > at:
                yield at, Plain, text[at:a]
            yield a, _TOKENS.get(name, Plain), text[a:b]
            at = b
        if at < len(text):
            yield at, Plain, text[at:]


class SourceView(Static):
    """The kernel source, highlighted by kernel/syntax.py's lexer (through CudaLexer)."""

    def show(self, source: str) -> None:
        self.code = source
        lexer = CudaLexer(stripnl=False, ensurenl=True, tabsize=4)  # as Rich makes a lexer it looks up by name
        self.update(DrawnOnce(Syntax(source, lexer, line_numbers=True, word_wrap=False, theme="ansi_dark")))


class SpecSummary(Static):
    def show(self, spec: Spec) -> None:
        from ..kernel import refkernel  # here: with the spec's models, after a resumed session's first frame

        t = Table.grid(padding=(0, 1))
        t.add_column(style="bold")
        t.add_column()
        t.add_row("kernel", Text(spec.kernel))
        t.add_row(
            "problem",
            Text(" x ".join(map(str, spec.problem_size)) + "  " + ", ".join(f"{k}={v}" for k, v in spec.sizes.items())),
        )
        for a in spec.args:
            what = f"{a.type}[{a.size}] {a.init}" if a.is_array else f"{a.type} = {a.value}"
            if a.output:
                atol, rtol = a.tolerance()
                what += f"  OUTPUT atol={atol:g} rtol={rtol:g}"
            t.add_row(Text(f"  {a.name}"), Text(what))
        for k, v in spec.tune_params.items():
            t.add_row(Text(f"tune {k}"), Text(", ".join(map(str, v)) + f"  (original {spec.baseline_params()[k]})"))
        for r in spec.restrictions:
            t.add_row("restrict", Text(r))
        t.add_row("space", f"{counted(spec.space_size(), 'configuration')} before restrictions")
        if spec.verify == "none":
            t.add_row(Text("verify", "bold red"), Text(f"UNVERIFIED: none ({spec.verify_reason})", "bold red"))
        elif spec.verify != "elementwise":
            t.add_row("verify", Text(f"{spec.verify} (your Python function, run in the GPU worker)"))
        if refkernel.is_kernel(spec.reference):
            t.add_row("expected", Text(refkernel.describe(spec)))
        self.update(t)


class GatePanel(Static, can_focus=True):
    """What the engine waits for, or what it is doing. Focused, its keys act at once; from any other
    widget a destructive one asks first. The movement keys scroll it, and only that."""

    HELP_NAME = "the gate panel"
    BINDINGS = [
        Binding("j,down", "scroll('down')", "Scroll down", show=False),
        Binding("k,up", "scroll('up')", "Scroll up", show=False),
        Binding("g,home", "scroll('home')", "Top", show=False),
        Binding("G,end", "scroll('end')", "Bottom", show=False),
        Binding("pageup", "scroll('page_up')", "Page up", show=False),
        Binding("pagedown", "scroll('page_down')", "Page down", show=False),
    ]

    def action_scroll(self, where: str) -> None:
        scroller = self.parent
        if isinstance(scroller, Widget):
            getattr(scroller, f"scroll_{where}")(animate=False)


class Banner(Widget):
    """One line: the backend first (the GPU, and SIMULATED for a replay), the kernel, the session
    and its state, the strategy. Where it does not fit, the least needed part goes first: what
    follows the GPU's name (a recording's date), then the strategy, then the words around the GPU's
    name and the session, then the session id; the kernel's name stays, cut in its middle at last."""

    sid: reactive[str | None] = reactive(None)
    strategy: reactive[str] = reactive("")
    choice: reactive[BackendChoice | None] = reactive(None)
    problem: reactive[str | None] = reactive(None)
    state: reactive[str] = reactive("")

    def __init__(self, kernel_label: str, id: str | None = None) -> None:
        super().__init__(id=id)
        self.kernel_label = kernel_label

    def render(self) -> Text:
        choice = self.choice
        sim = bool(choice and choice.simulated)
        if choice is None:
            badge, style = ("no backend" if self.problem else "choosing a backend…"), "bold"
        elif choice.simulated:
            badge, style = f"SIMULATED replay · {choice.gpu}", "bold black on yellow"
        else:
            badge, style = choice.label(), "bold"
        short = badge.split(" (")[0]  # the GPU's name without its recording date, the label without its aside
        tight = short.replace("SIMULATED replay · ", "SIMULATED · ") if sim else short
        state = f" · {self.state}" if self.state else ""
        session = f" session {self.sid or '(new)'}{state} "
        strategy = f" strategy: {self.strategy}" if self.strategy else ""
        shown = (
            (badge, session, strategy),
            (short, session, strategy),
            (short, session, ""),
            (tight, f" {self.sid or 'new'}{state} ", ""),
            (tight, f" {self.state} " if self.state else "", ""),
        )
        room = self.size.width or 10**6
        for gpu, sess, strat in shown:
            text = self._line(gpu, style, self.kernel_label, sess, strat)
            if text.cell_len <= room:
                return text
        # the kernel's name stays whatever the width: cut in its middle, its start and end kept
        left = room - (text.cell_len - len(self.kernel_label))
        return self._line(tight, style, middle_cut(self.kernel_label, max(left, 5)), sess, "")

    @staticmethod
    def _line(gpu: str, style: str, kernel: str, session: str, strategy: str) -> Text:
        return Text.assemble(
            (f" {gpu} ", style), (f" {kernel} ", "bold"), session, strategy, no_wrap=True, overflow="ellipsis"
        )


def middle_cut(name: str, width: int) -> str:
    """name in at most width cells, its middle replaced by an ellipsis (a file's extension stays)."""
    if len(name) <= width:
        return name
    tail = (width - 1) // 2
    return name[: width - 1 - tail] + "…" + (name[-tail:] if tail else "")


class RowDetail(Static):
    """The results row under the cursor in full: every parameter by name, its verdict, and its whole
    note (a compile error's reason), wrapped, whatever the width."""

    def show(self, text: Text) -> None:
        self.update(text)


class ProgressLine(Static):
    pass


class FitFooter(Footer):
    """The footer in one line at any width, every key shown with its name: names shorten to their
    first word, then the keys past the decisions go, Help and Quit last (? lists every key)."""

    KEEP = 6  # the first keys (the gate's decisions) stay to the end
    SHORT = {"Approve all": "All", "Autopilot off": "Autopilot", "Pause/resume": "Pause"}

    def compose(self):
        keys = list(super().compose())
        found = [k for k in keys if isinstance(k, FooterKey)]
        labels = self.screen.footer_labels() if hasattr(self.screen, "footer_labels") else {}
        for k in found:  # the gate's own names: Accept and Reject at an accept gate
            k.description = labels.get(k.action, k.description)
        room = self.app.size.width

        def width(shown: list[FooterKey]) -> int:
            return sum(len(k.key_display) + len(k.description) + 3 for k in shown)

        if width(found) > room:
            for k in found:
                k.description = self.SHORT.get(k.description) or k.description.split(" ")[0]
        kept = list(found)
        for k in sorted(found[self.KEEP :], key=lambda k: k.description in ("Help", "Quit")):
            if width(kept) <= room:
                break
            kept.remove(k)
        self.styles.grid_size_columns = len(kept)
        yield from (k for k in keys if not isinstance(k, FooterKey) or k in kept)
