"""The sessions browser: every stored session in a table; open or resume, export, delete, filter."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, cast

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from ..errors import UserError
from ..store import SessionStore, Store
from ..store.lock import SessionLocked
from .confirm import MOVE_KEYS, AskScreen
from .export_screen import ExportScreen
from .keys import HelpScreen, help_text


class OpensStored(Protocol):
    """What this screen asks of the app (ui/app.py: KtApp)."""

    def open_stored(self, sid: str) -> None: ...


# what a narrow terminal must keep comes first: which session, on what GPU, when, and whether replayed
COLUMNS = ("id", "kernel", "GPU", "date", "sim", "state", "best ms", "speedup", "strategy")
GPU_WIDTH = 16  # characters of the GPU's name a row shows ("NVIDIA " left out)


def session_cells(s: dict) -> tuple[str, ...]:
    best, base = s.get("best_ms"), s.get("baseline_ms")
    gpu = (s["gpu"] or "-").removeprefix("NVIDIA ").split(" (recorded")[0]
    return (
        s["id"],
        Path(s["kernel_path"] or "").name,
        gpu if len(gpu) <= GPU_WIDTH else gpu[: GPU_WIDTH - 1] + "…",
        (s["created"] or "")[:16],
        "SIMULATED" if s["simulated"] else "",
        s["state"] or "-",
        f"{best:.4f}" if best else "-",
        f"{base / best:.2f}x" if best and base else "-",
        s["strategy"] or "-",
    )


def writable(screen: Screen | App, store: Store) -> bool:
    """Whether the store can be written; if not, a notice says so and what to do (store/problems.py)."""
    try:
        store.check_writable()
    except UserError as e:
        screen.notify(str(e), severity="error", timeout=10)
        return False
    return True


class SessionsTable(DataTable):
    """The list: enter opens the selected session (and says so in the footer); j/k, g/G move."""

    BINDINGS = [*MOVE_KEYS, Binding("enter", "select_cursor", "Open / resume", id="sessions.enter")]
    HELP_NAME = "the list of sessions"


class SessionsScreen(Screen):
    BINDINGS = [
        Binding("enter", "open", "Open / resume", id="sessions.open", priority=False),
        Binding("x", "export", "Export", id="sessions.export"),
        Binding("d", "delete", "Delete", id="sessions.delete"),
        Binding("slash", "filter", "Filter", id="sessions.filter"),
        Binding("escape", "clear_filter", "Clear filter", id="sessions.clear", show=False),
        Binding("q", "quit", "Quit", id="sessions.quit"),
        Binding("question_mark,f1", "help", "Help", id="sessions.help", key_display="?"),
    ]

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.filter = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"Sessions in {self.store.path}", id="sessions-title")
        yield Input(placeholder="filter: any text in a row (enter keeps it, escape clears)", id="sessions-filter")
        yield SessionsTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        self.query_one(Input).display = False
        self.refill()
        table.focus()

    def on_screen_resume(self) -> None:
        self.refill()

    def refill(self) -> None:
        """The rows again (after a delete, a filter, a session closed); the cursor stays at its place."""
        table = self.query_one(DataTable)
        at = table.cursor_row
        table.clear()
        needle = self.filter.lower()
        for s in self.store.sessions():
            cells = session_cells(s)
            if needle and not any(needle in c.lower() for c in cells):
                continue
            table.add_row(*cells, key=s["id"])
        shown = table.row_count
        if shown:
            table.move_cursor(row=min(at, shown - 1))
        self.query_one("#sessions-title", Static).update(
            f"Sessions in {self.store.path}: {shown}"
            + (f" matching {self.filter!r}" if self.filter else "")
            + ("  ·  enter opens or resumes the selected one" if shown else " (none: `kt-tui KERNEL.cu` starts one)")
        )

    def selected(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        sid = self.selected()
        if sid:
            cast(OpensStored, self.app).open_stored(sid)

    def action_export(self) -> None:
        sid = self.selected()
        if sid:
            self.app.push_screen(ExportScreen(self.store, sid))

    def action_delete(self) -> None:
        sid = self.selected()
        if not sid or not writable(self, self.store):
            return
        try:
            s = SessionStore(self.store, sid).session()
            what = f"{Path(s['kernel_path']).name}, {s['state']}, {s['created']}"
        except UserError:  # a damaged session (store/sound.py) is one that may well be deleted
            what = "its stored rows are damaged"
        holder = self.store.lock_holder(sid)
        if holder:  # a process runs it: refused here, and by delete_session itself
            self.notify(
                f"session {sid} is running in process {holder.get('pid')} (since {holder.get('since')}): not deleted",
                severity="warning",
            )
            return

        def done(yes: bool | None) -> None:
            if yes:
                try:
                    self.store.delete_session(sid)
                except SessionLocked as e:
                    self.notify(f"{e}: not deleted", severity="warning")
                    return
                self.notify(f"deleted session {sid}")
                self.refill()

        self.app.push_screen(
            AskScreen(f"Delete session {sid} ({what}) and all its results? This cannot be undone."),
            done,
        )

    def action_filter(self) -> None:
        box = self.query_one(Input)
        box.display = True
        box.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.filter = event.value.strip()
        self.refill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    def action_clear_filter(self) -> None:
        box = self.query_one(Input)
        box.value, box.display = "", False
        self.filter = ""
        self.refill()
        self.query_one(DataTable).focus()

    def action_quit(self) -> None:
        self.app.exit()

    def action_help(self) -> None:
        table = self.query_one(SessionsTable)
        keys = [b for b in self.BINDINGS if isinstance(b, Binding) and b.id != "sessions.open"]
        keymap = getattr(getattr(self.app, "settings", None), "keys", None) or {}
        here = (table.HELP_NAME, table.BINDINGS)
        self.app.push_screen(HelpScreen(help_text(keys, keymap, here=here, session=False)))
