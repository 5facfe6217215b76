"""compute-sanitizer from the kernel gate: run it in a thread worker, show its report in a modal."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..engine.gates import KernelGate
from ..engine.kernel_step import candidate
from ..words import counted
from .confirm import Scroll


class ReportScreen(ModalScreen[None]):
    CSS_PATH = "modal.tcss"
    BINDINGS = [
        Binding("escape", "close", "Close", id="report.close"),
        Binding("q", "close", "Close", show=False, id="report.quit"),
    ]

    def __init__(self, title: str, body: str, style: str = "") -> None:
        super().__init__()
        self.title_text, self.body, self.style = title, body, style

    def compose(self) -> ComposeResult:
        with Vertical(classes="editor"):
            yield Static(Text(self.title_text, style=f"bold {self.style}"), id="report-title")
            with Scroll():
                yield Static(Text(self.body), id="report-text")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)


def report_title(report: dict) -> tuple[str, str]:
    if report["ok"] is None:
        return f"{report['tool']}: not run - {report['reason']}", "yellow"
    if report["ok"]:
        return f"{report['tool']}: no errors ({report['seconds']:.1f} s at {report['sizes']})", "green"
    why = f" - {report['reason']}" if report["reason"] else ""
    return f"{report['tool']}: {counted(report['errors'], 'error')}{why}", "red"


def start_sanitizer(screen, tool: str) -> None:
    """From the kernel gate: the generated kernel once under compute-sanitizer, in a thread."""
    gate, engine = screen.gate, screen.engine
    if not isinstance(gate, KernelGate) or engine is None:
        return
    if gate.body.get("flags"):  # flagged code is neither compiled nor run before it is approved
        screen.notify(
            "This kernel has safety flags: it is compiled and run only after you approve it.", severity="warning"
        )
        return

    def work() -> None:
        try:
            code, spec = candidate(engine, gate.body)
            report = engine.sanitize(code, spec, tool)
            title, style = report_title(report)
            body = report["text"] or "(no output)"
        except Exception as e:  # noqa: BLE001 - shown to the user, the session goes on
            title, style, body = f"{tool}: failed", "red", f"{type(e).__name__}: {e}"
        screen.app.call_from_thread(screen.app.push_screen, ReportScreen(title, body, style))

    screen.notify(f"Running the generated kernel once under compute-sanitizer --tool {tool}…")
    screen.run_worker(work, thread=True, group="sanitize", exclusive=True)
