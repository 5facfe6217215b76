"""The results table: one row per (kernel version, configuration). Each row names its version
(original, step 1, ...) and fills the columns of that version's own parameters."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from ..records import Result, as_result, replace, trusted
from .confirm import MOVE_KEYS

STATUS_STYLE = {
    "ok": "green",
    "wrong_result": "bold red",
    "compile_error": "red",
    "runtime_error": "red",
    "timeout": "magenta",
    "crash": "bold magenta",
    "invalid": "dim",
    "not_recorded": "dim yellow",
}
# time, speedup, % of peak, status and the verdict come before the parameters, the note last: below 120 columns
# the headers shorten (NARROW, abbreviate) and the note is cut; the row's detail (RowDetail) has it all
HEAD = (("time ms", "time"), ("speedup", "speedup"), ("%peak", "peak"), ("status", "status"), ("verified", "verified"))
# "%peak" is shown only once the session has the device's facts (a recording without them has none to show)
TAIL = (("worker", "worker"), ("note", "note"))
NARROW = {"time": "ms", "speedup": "x", "peak": "%pk", "verified": "ok?", "version": "ver"}
NOTE_NARROW = 24  # characters of the note a row shows below 120 columns
STATUS_NARROW = {
    "compile_error": "compile",
    "runtime_error": "runtime",
    "wrong_result": "WRONG",
    "not_recorded": "no rec",
}


def abbreviate(names: list[str]) -> dict[str, str]:
    """Short column headers for parameter names, each distinct: block_size_x -> bsx, tile_k -> tk,
    WORK_PER_THREAD -> WPT; a name of 4 characters or fewer stays."""
    out: dict[str, str] = {}
    for name in names:
        parts = [p for p in name.split("_") if p]
        short = name if len(name) <= 4 or len(parts) < 2 else "".join(p[0] for p in parts)
        while short in out.values() and short != name:
            short = name[: len(short) + 1]
        out[name] = short
    return out


def short_label(label: str | None, vid: str) -> str:
    """'step 3: tile the loop' -> 'step 3'; a version without a label is named by its id."""
    return (label or "").split(":")[0].strip() or vid[:8]


def _rank(r: Result, is_reference: bool = False) -> float:
    """Which results the table shows first: the fastest trusted ones (records.trusted); the rest last."""
    return r.time_ms if r.time_ms is not None and trusted(r, is_reference) else math.inf


def _fmt_ms(v) -> str:
    return f"{v:.4f}" if v is not None else "-"


class ResultsTable(DataTable):
    """Rows keyed by the configuration's cache key (the original's) or 'version:key' (any other);
    the best row is starred, the candidate of an accept gate marked.

    A session can hold 100,000 results: the table shows the MAX_ROWS fastest (failures last; up to
    twice as many between two trims) and keeps the results of this run's events in rows_data, so
    that adding, sorting and re-basing cost the same at any size. A resumed session's stored rows
    that do not show stay in the store (put_stored): they are slower than every row shown. Of the
    stored rows that show, the top of the table is added at once and the rest (add_stored) FILL_ROWS
    at a time when the cursor or the view nears the last row added: a DataTable redraws every
    visible row after each add, so rows filled in behind the user's back would hold up their keys."""

    BINDINGS = MOVE_KEYS
    HELP_NAME = "the results table"
    MAX_ROWS = 1000
    vacuous: str | None = None
    narrow = False  # short headers, statuses and notes (below 120 columns)
    FILL_ROWS = 50  # rows added when the cursor or the view comes within NEAR_END rows of the last one
    NEAR_END = 10

    def setup(
        self,
        param_names: list[str],
        reference_key: str | None = None,
        workers: bool = False,
        original: str | None = None,
    ) -> None:
        self.param_names = list(param_names)
        self.by_worker = workers  # a column for the GPU worker that measured each row (--gpus, --ray)
        self.reference_key = reference_key
        self.original = original
        self.labels: dict[str | None, str] = {}  # version id -> its short label
        self.version_params: dict[str, list[str]] = {}
        self.cursor_type = "row"
        self.zebra_stripes = True
        self.best_key: str | None = None
        self.candidate: str | None = None
        self.vacuous: str | None = None  # why the session's check proves nothing (engine/strength.py)
        self.baseline_ms: float | None = None
        self.peak_of: Callable[[Result], str] | None = None  # ui/profile_tab.py peak_cells, after the first frame
        self.rows_data: dict[str, Result] = {}
        self.stored_hidden = 0  # stored results, never loaded, slower than the rows shown
        # (version, params) -> a stored result not loaded, for mark_candidate
        self.find_stored: Callable[[str, dict[str, Any]], Result | None] | None = None
        self._shown: list[tuple[float, int, str]] = []  # heap of (-rank, seq, key) of shown rows: the slowest on top
        self._pending: dict[str, None] = {}  # stored rows that show once scrolled to, fastest first (add_stored)
        self._seq = 0
        self.sort_index: str | None = None
        self.sort_reverse = False
        self.filter_text = ""  # rows whose text holds every word of it show; the others wait in rows_data
        self._add_columns()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        # selecting a row does nothing here: leave enter to whatever the keymap gives it
        return False if action == "select_cursor" else True

    def _add_columns(self) -> None:
        short = abbreviate(self.param_names) if self.narrow else {}

        def label(text: str, key: str) -> str:
            text = NARROW.get(key, text) if self.narrow else text
            return text + ((" ▼" if self.sort_reverse else " ▲") if key == self.sort_index else "")

        self.add_column("", key="best", width=1)
        self.add_column(label("version", "version"), key="version")
        for text, key in HEAD:
            if key != "peak" or self.peak_of:
                self.add_column(label(text, key), key=key)
        for n in self.param_names:
            self.add_column(label(short.get(n, n), f"p:{n}"), key=f"p:{n}")
        for text, key in TAIL:
            if key != "worker" or self.by_worker:
                self.add_column(label(text, key), key=key)

    @property
    def sort_label(self) -> str:
        """'time ▲' for the status bar; '' when unsorted (fastest first, as the rows came)."""
        if not self.sort_index:
            return ""
        name = {k: t for t, k in HEAD + TAIL}.get(self.sort_index, self.sort_index.removeprefix("p:"))
        return f"{name} {'▼' if self.sort_reverse else '▲'}"

    def matches(self, r: Result) -> bool:
        if not self.filter_text:
            return True
        text = " ".join(
            [
                self.labels.get(r.version, "original"),
                r.status,
                r.key,
                *(f"{k}={v}" for k, v in r.params.items()),
                str(r.error or ""),
                str(r.origin or ""),
            ]
        ).lower()
        return all(word in text for word in self.filter_text.lower().split())

    def set_filter(self, text: str) -> None:
        """Show only the loaded rows that match (all of them when text is empty), fastest first or
        in the sort chosen."""
        self.filter_text = text.strip()
        self._pending = {}
        keys = [
            k
            for k in heapq.nsmallest(self.MAX_ROWS, self.rows_data, key=lambda k: _rank(self.rows_data[k]))
            if self.matches(self.rows_data[k])
        ]
        self._rebuild(keys)
        if self.sort_index:
            self.sort_by(self.sort_index, self.sort_reverse)

    def add_version(self, vid: str, label: str, names: list[str]) -> None:
        """A kernel version and its parameters; new parameter names become columns."""
        self.labels[vid] = label
        self.version_params[vid] = list(names)
        if self.original is None:
            self.original = vid
        new = [n for n in names if n not in self.param_names]
        if new:
            self.param_names += new
            self._rebuild(self._row_keys())

    def _row_keys(self) -> list[str]:
        """The keys of the rows shown, in their order on screen (every row is added with one)."""
        return [row.key.value for row in self.ordered_rows if row.key.value is not None]

    def row_key(self, vid: str | None, key: str) -> str:
        return key if vid in (None, self.original) else f"{vid}:{key}"

    @property
    def sortable(self) -> list[str]:
        return ["version"] + [f"p:{n}" for n in self.param_names] + ["time", "speedup", "status", "verified"]

    def _speedup(self, r: Result) -> Text:
        speed = (self.baseline_ms / r.time_ms) if (self.baseline_ms and r.time_ms) else None
        return Text(f"{speed:.2f}x" if speed else "-", justify="right")

    def _cells(self, r: Result) -> list:
        vid = r.version
        status = Text(r.status, style=STATUS_STYLE.get(r.status, ""))
        verified = {True: Text("yes", "green"), False: Text("NO", "bold red"), None: Text("-", "dim")}[r.verified]
        if r.source == "recorded":  # sim: the verdict was recorded on the GPU, not checked here
            verified = Text(("rec " + verified.plain) if r.verified is not None else "no verdict", verified.style)
        if self.vacuous and r.verified is not False:  # the session's check proves nothing
            verified = Text("unchecked", "bold yellow")
        note = self._note(r)
        if note:
            note = note.strip().splitlines()[-1] if note.strip() else ""
            cut = NOTE_NARROW if self.narrow else 80
            note = note[: cut - 1] + "…" if len(note) > cut else note
        row = self.row_key(vid, r.key)
        if row == self.reference_key:
            verified, note = Text("ref", "cyan"), note or "the original configuration: its outputs are the reference"
        label = Text(self.labels.get(vid, "original" if vid in (None, self.original) else vid[:8]))
        if row == self.candidate:
            label = Text(f"{label.plain} ◆", "bold magenta")
            note = note or "the candidate: accept or reject it"
        if self.narrow:
            status = Text(STATUS_NARROW.get(r.status, r.status), status.style)
        params = r.params
        return [
            label,
            Text(_fmt_ms(r.time_ms), justify="right"),
            self._speedup(r),
            *([Text(self.peak_of(replace(r, version=vid or self.original)), justify="right")] if self.peak_of else []),
            status,
            verified,
            *[Text(str(params[n])) if n in params else Text("") for n in self.param_names],
            *([Text(r.worker or "-")] if self.by_worker else []),
            Text(note),
        ]

    @staticmethod
    def _note(r: Result) -> str:
        """What went wrong with a row (the first bad output, the compiler's or the run's error), or
        where its configuration came from."""
        return str((r.first_bad if r.status == "wrong_result" else (r.error or r.origin or "")) or "")

    def detail(self, key: str | None) -> Text:
        """Everything about one row, for the pane under the table: its version, time, verdict, every
        parameter by its full name, and its whole note (a compile error's reason included)."""
        r = self.rows_data.get(key) if key is not None else None
        if r is None:
            return Text("")
        cells = self._cells(r)
        text = Text.assemble(
            ("◆ " if key == self.candidate else "★ " if key == self.best_key else "", "bold"),
            (cells[0].plain.rstrip(" ◆"), "bold"),
            f"  {_fmt_ms(r.time_ms)} ms  {cells[2].plain}  "
            + (f"{cells[3].plain} of peak  " if self.peak_of and cells[3].plain.strip("-") else ""),
            (r.status, STATUS_STYLE.get(r.status, "")),
            "  verified ",
            cells[1 + [key for _, key in HEAD if key != "peak" or self.peak_of].index("verified")],
            "  " + " ".join(f"{k}={v}" for k, v in r.params.items()),
        )
        if r.worker:
            text.append(f"  on {r.worker}")
        note = self._note(r).strip()
        if key == self.reference_key:
            note = note or "the original configuration: its outputs are the reference"
        if note:
            text.append("\n" + note, style="red" if r.status not in ("ok", "invalid") else "dim")
        return text

    def set_narrow(self, narrow: bool) -> None:
        """Short headers, statuses and notes below 120 columns; the rows stay where they are."""
        self.narrow = narrow
        self._rebuild(self._row_keys())

    def put(self, r: Result, vid: str | None = None) -> str:
        r = as_result(r)
        if vid is not None:
            r = replace(r, version=vid)
        key = self.row_key(r.version, r.key)
        self.rows_data[key] = r
        if key in self.rows:
            for col, value in zip([c for c in self.columns if c != "best"], self._cells(r)):
                self.update_cell(key, col, value, update_width=True)
            return key
        if key != self.candidate and not self.matches(r):
            return key  # kept in rows_data: shows when the filter changes
        if self.shown >= self.MAX_ROWS and key != self.candidate:
            if _rank(r, key == self.reference_key) >= self._slowest_rank():
                return key  # kept in rows_data, not shown
        self._show(key)
        if len(self.rows) >= 2 * self.MAX_ROWS:
            self._trim()  # removing rows one by one costs a DataTable far more than one rebuild
        return key

    def put_many(self, rs: list[Result]) -> None:
        """Stored results at once: only the ones that will show become rows."""
        if self.rows:
            for r in rs:
                self.put(r)
            return
        for r in map(as_result, rs):
            self.rows_data[self.row_key(r.version, r.key)] = r
        for k in heapq.nsmallest(self.MAX_ROWS, self.rows_data, key=lambda k: self._rank_of(k)):
            self._show(k)

    def put_stored(self, fastest: list[Result], total: int) -> None:
        """A resumed session: the store's fastest rows (Store.fastest) out of `total` stored."""
        self.put_many(fastest)
        self.stored_hidden = max(total - len(fastest), 0)

    def add_stored(self, fastest: list[Result]) -> None:
        """The rest of the stored rows counted by put_stored (Store.fastest with the same mark, so it
        starts with the rows already put): they show as the user scrolls to them. A row that an
        event has put since is newer than the store's and stays as it is."""
        for r in fastest:
            key = self.row_key(r.version, r.key)
            if key in self.rows_data:
                continue
            self.rows_data[key] = r
            self.stored_hidden = max(self.stored_hidden - 1, 0)
            self._pending[key] = None
        if self.sort_index:  # sorted before they came: a sorted table has all its rows
            self.sort_by(self.sort_index, self.sort_reverse)
        self._fill_near_end()

    def watch_cursor_coordinate(self, old, new) -> None:
        super().watch_cursor_coordinate(old, new)
        self._fill_near_end()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._fill_near_end()

    def action_scroll_bottom(self) -> None:
        self._fill(len(self._pending))
        super().action_scroll_bottom()

    def _fill_near_end(self) -> None:
        near = len(self.rows) - self.NEAR_END
        if getattr(self, "_pending", None) and (self.cursor_row >= near or self.scroll_y + self.size.height >= near):
            self._fill(self.FILL_ROWS)

    def _fill(self, n: int) -> None:
        pending, self._pending = self._pending, {}  # adding a row moves the cursor: no fill from inside a fill
        try:
            for key in list(pending)[:n]:
                del pending[key]
                if self.matches(self.rows_data[key]):
                    self._show(key)
        finally:
            self._pending = pending

    @property
    def shown(self) -> int:
        """Rows in the table, with those that show once scrolled to."""
        return len(self.rows) + len(self._pending)

    def _rank_of(self, key: str) -> float:
        return _rank(self.rows_data[key], key == self.reference_key)

    def _slowest_rank(self) -> float:
        """The rank a row needs to beat to show in a full table: the slowest shown or still to show."""
        worst = self._slowest_shown()
        rank = -worst[0] if worst is not None else -math.inf
        return max(rank, self._rank_of(next(reversed(self._pending)))) if self._pending else rank

    @property
    def hidden(self) -> int:
        return len(self.rows_data) - self.shown + self.stored_hidden

    @property
    def total(self) -> int:
        """Results of the session: the ones loaded or streamed and the stored ones left unloaded."""
        return len(self.rows_data) + self.stored_hidden

    def _trim(self) -> None:
        keep = set(heapq.nsmallest(self.MAX_ROWS, self._row_keys(), key=lambda k: self._rank_of(k)))
        if self.candidate is not None and self.candidate in self.rows:
            keep.add(self.candidate)
        self._rebuild([k for k in self._row_keys() if k in keep])

    def _show(self, key: str) -> None:
        self._pending.pop(key, None)
        self._seq += 1
        heapq.heappush(self._shown, (-self._rank_of(key), self._seq, key))
        star = Text("★", style="bold yellow") if key == self.best_key else ""
        self.add_row(star, *self._cells(self.rows_data[key]), key=key)

    def _slowest_shown(self):
        while self._shown and self._shown[0][2] not in self.rows:
            heapq.heappop(self._shown)
        return self._shown[0] if self._shown else None

    def mark_best(self, key: str | None) -> None:
        if self.best_key and self.best_key in self.rows:
            self.update_cell(self.best_key, "best", "")
        self.best_key = key
        if key and key in self.rows:
            self.update_cell(key, "best", Text("★", style="bold yellow"))

    def mark_candidate(self, vid: str | None, params: dict | None = None) -> None:
        """The row an accept gate asks about (None: no gate asks now)."""
        old, self.candidate = self.candidate, None
        if vid is not None:
            self.candidate = next(
                (k for k, r in self.rows_data.items() if r.version == vid and r.params == params), None
            )
            stored = (
                self.find_stored(vid, params)
                if self.candidate is None and self.find_stored and params is not None
                else None
            )
            if stored is not None:
                self.candidate = self.row_key(vid, stored.key)
                self.rows_data[self.candidate] = stored
                self.stored_hidden = max(self.stored_hidden - 1, 0)
        for key in {k for k in (old, self.candidate) if k is not None}:
            if key in self.rows:
                self.put(self.rows_data[key])
        if self.candidate is not None and self.candidate not in self.rows:
            self._show(self.candidate)  # the row the gate asks about shows, however slow
        if self.candidate is not None:  # pinned first, where it shows without scrolling
            self.keep_order()
            self.move_cursor(row=0)

    def set_reference(self, key: str) -> None:
        """The row of the original configuration, once known (a resumed session's spec is read after
        the first frame): marked, and ranked as a trusted row when nothing checked it (records.trusted)."""
        self.reference_key = key
        r = self.rows_data.get(key)
        if r is None or key not in self.rows:
            return
        if _rank(r) == _rank(r, True):
            self.put(r)
        else:  # its place changes
            self._rebuild(sorted(self._row_keys(), key=self._rank_of))

    def set_baseline(self, ms: float | None) -> None:
        if ms == self.baseline_ms:
            return
        self.baseline_ms = ms
        for key in self._row_keys():  # the shown rows: the others get theirs when they show
            # a row shown before the baseline's time had "-" there: the column widens to "1.00x"
            self.update_cell(key, "speedup", self._speedup(self.rows_data[key]), update_width=True)

    def set_peak(self, peak_of: Callable[[Result], str] | None) -> None:
        """Fill the "%peak" column: each result's share of the device's measured peak (None: no facts,
        no column)."""
        if (peak_of is None) != (self.peak_of is None):
            self.peak_of = peak_of
            self._rebuild(self._row_keys())
            return
        self.peak_of = peak_of
        if peak_of is None:
            return
        for key in self._row_keys():
            r = self.rows_data[key]
            cell = Text(peak_of(replace(r, version=r.version or self.original)), justify="right")
            self.update_cell(key, "peak", cell, update_width=True)

    def sort_by(self, column: str, reverse: bool = False) -> None:
        def value(r: Result):
            if column.startswith("p:"):
                v = r.params.get(column[2:])
            elif column == "version":
                v = list(self.labels).index(r.version) if r.version in self.labels else None
            elif column in ("time", "speedup"):
                v = r.time_ms
                if column == "speedup" and v is not None:
                    v = -v  # larger speedup first
            elif column == "verified":
                v = {True: 0, False: 2, None: 1}[r.verified]
            else:
                v = getattr(r, column, None)
            return (v is None, v if v is not None else 0) if not isinstance(v, str) else (False, v)

        relabel = (column, reverse) != (self.sort_index, self.sort_reverse)
        self.sort_index, self.sort_reverse = column, reverse
        if relabel:  # the headers' marks change: the columns are made again
            self._rebuild(self._row_keys())
        self._fill(len(self._pending))  # a sorted table has all its rows
        self._order(sorted(self._row_keys(), key=lambda k: value(self.rows_data[k]), reverse=reverse))

    def keep_order(self) -> None:
        """Rows as the status bar says: fastest first (failures last), or the sort chosen; the
        candidate of an accept gate first. Rows move; the cursor stays on its row, or on the first
        row when it was there (the view stays on the fastest)."""
        if self.sort_index:
            self.sort_by(self.sort_index, self.sort_reverse)
            return
        keys = self._row_keys()
        seq = {k: i for i, k in enumerate(keys)}  # ties keep the order they had
        self._order(sorted(keys, key=lambda k: (self._rank_of(k), seq[k])))

    def _order(self, keys: list[str]) -> None:
        """Puts the rows in this order (each shown row once), as DataTable.sort does (Textual is pinned)."""
        if self.candidate is not None and self.candidate in self.rows:
            keys = [self.candidate, *(k for k in keys if k != self.candidate)]
        if keys == self._row_keys():
            return
        at = self.coordinate_to_cell_key(self.cursor_coordinate).row_key if self.row_count else None
        top = self.cursor_row == 0  # on the fastest: it stays there, on whichever row is fastest now
        self._row_locations = TwoWayDict({RowKey(k): i for i, k in enumerate(keys)})
        self._update_count += 1
        self.refresh()
        if top and self.row_count:
            self._highlight_row(0)  # the row under the cursor changed: its detail line follows
        elif at is not None and at.value in self.rows:
            self.move_cursor(row=self.get_row_index(at), scroll=False)

    def _rebuild(self, order: list[str]) -> None:
        best = self.best_key
        pending, self._pending = self._pending, {}  # clearing moves the cursor: no fill in between
        try:
            self.clear(columns=True)
            self._add_columns()
            self._shown = []
            for k in order:
                pending.pop(k, None)
                self._show(k)
        finally:
            self._pending = pending
        self.mark_best(best)
