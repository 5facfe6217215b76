"""Export a session from the app: pick a folder, confirm, write in a worker thread, list the files."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static

from ..errors import UserError
from ..export import export_session
from ..files import file_stem
from ..store import SessionStore, Store
from ..words import counted
from .confirm import Scroll


def default_folder(store: Store, sid: str) -> str:
    s = SessionStore(store, sid).session()
    return str(Path.cwd() / f"{file_stem(s['kernel_name'] or 'kernel')}-{sid}-export")


class ExportScreen(ModalScreen[None]):
    CSS_PATH = "modal.tcss"
    BINDINGS = [Binding("escape", "close", "Close", id="export.close")]

    def __init__(self, store: Store, sid: str) -> None:
        super().__init__()
        self.store, self.sid = store, sid
        self.written: list[str] | None = None
        self.refused: str | None = None  # the folder whose files exist: enter again overwrites them

    def compose(self) -> ComposeResult:
        with Vertical(classes="editor"):
            yield Static(
                Text(
                    f"Export session {self.sid}: the best kernel, its spec, a kernel_tuner script, "
                    "caches and a report. Folder (enter writes, escape closes):",
                    style="bold",
                )
            )
            yield Input(default_folder(self.store, self.sid), id="export-dir")
            with Scroll():
                yield Static("", id="export-result")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        folder = event.value.strip()
        if not folder:
            self.query_one("#export-result", Static).update(Text("Give a folder to write into.", style="red"))
            return
        force, self.refused = folder == self.refused, None
        self.query_one("#export-result", Static).update(f"Writing to {folder}…")
        self.run_worker(lambda: self._export(folder, force), thread=True, group="export", exclusive=True)

    def _export(self, folder: str, force: bool = False) -> None:
        done = False
        try:
            out = export_session(self.store, self.sid, folder, force=force)
        except UserError as e:
            exists = "already exists" in str(e)
            self.refused = folder if exists else None
            text = Text(
                str(e).replace("--force overwrites it", "enter again overwrites it") if exists else str(e), style="red"
            )
        except Exception as e:  # noqa: BLE001 - shown to the user; the session is not touched
            text = Text(f"export failed: {type(e).__name__}: {e}", style="red")
        else:
            self.written, done = out["files"], True
            text = Text(f"Wrote {counted(len(out['files']), 'file')}:\n" + "\n".join(out["files"]), style="green")
            if out["not_written"]:
                text.append("\nNot written:\n" + "\n".join(out["not_written"]), style="yellow")
        self.app.call_from_thread(self._show, text, done)

    def _show(self, text: Text, done: bool) -> None:
        self.query_one("#export-result", Static).update(text)
        if done:  # the folder is written: keys go to the list of files, not into the path
            self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
