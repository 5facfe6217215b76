"""The session screen's stored part: what a resumed session shows in its first frame, and the
rest of its rows and plot points read on a thread. A mixin of SessionScreen."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.message import Message

from ..engine.strength import vacuous_why
from ..records import Result, config_key, trusted
from ..store import SessionStore
from .plot import TuningPlot
from .stored import StoredPoints, StoredRows, read_stored
from .widgets import ResultsTable

PROMPT_SHOWN = 1500  # characters of each stored prompt the LLM tab shows


class StoredCalls(Message):
    def __init__(self, calls: list[dict]) -> None:
        super().__init__()
        self.calls = calls


def call_lines(c: dict) -> list[Text | str]:
    """One stored LLM call as the LLM tab shows it: what was asked, what came back or went wrong."""
    tokens = f", {c['tokens_in'] or 0} tokens in, {c['tokens_out'] or 0} out" if c.get("tokens_in") else ""
    took = f", {c['latency_s']:.1f} s" if c.get("latency_s") else ""
    attempt = f"attempt {c.get('attempt') or 1}: {c.get('state') or '?'}"
    head = f"--- {c['key']} ({c['purpose']}), {attempt}{tokens}{took} ---"
    out: list[Text | str] = [Text(head, style="bold red" if c.get("error") else "bold")]
    asked = next(
        (
            m.get("content")
            for m in reversed(c.get("messages") or [])
            if isinstance(m, dict) and m.get("role") == "user"
        ),
        None,
    )
    if isinstance(asked, str) and asked:
        more = len(asked) - PROMPT_SHOWN
        out.append(
            Text("asked: " + asked[:PROMPT_SHOWN] + (f"… ({more} more characters)" if more > 0 else ""), style="dim")
        )
    if c.get("reply"):
        out.append(str(c["reply"]))
    if c.get("error"):
        out.append(Text(f"failed: {c['error']}", style="red"))
    return out


if TYPE_CHECKING:
    from textual.widgets import RichLog

    from .session_shape import SessionShape as _Screen
else:
    _Screen = object


def freeze_heap() -> None:
    """Takes the objects alive now out of the garbage collector's full passes. A full pass walks
    every container object: with the imported modules, Textual's widgets and styles and a big
    session's plot index it took 90-135 ms of CPU (0.3-1 s on a busy 2-core machine), paid by
    whichever key or modal open it fell on. Objects made later are collected as before."""
    gc.freeze()


class StoredView(_Screen):
    def on_unmount(self) -> None:
        gc.unfreeze()  # what was frozen and is garbage now can go

    def after_first_frame(self, work, *args) -> None:
        """Starts `work` once the screen's first frame is drawn: threads started sooner share the
        interpreter with the UI thread and delay that frame (a resumed session's first frame waits
        for nothing but its visible rows)."""
        self.call_after_refresh(work, *args)

    @property
    def llm_log(self) -> RichLog:
        """The LLM tab's log (mounted after the first frame: SessionScreen._fill_tabs)."""
        from textual.widgets import RichLog  # here: it loads rich.pretty, which the first frame does without

        return self.query_one("#llm-log", RichLog)

    @property
    def data(self) -> SessionStore:
        """What the screen reads of its session (the engine writes it)."""
        if self.sid is None:
            raise LookupError("the session has not started")
        return SessionStore(self.store, self.sid)

    def _load_stored(self) -> None:
        """What the first frame shows: the session, its plan, its best and the top of the table.
        The rest of the table and the plot's points are read on a thread (ui/stored.py)."""
        s = self.data.session()
        table = self.query_one(ResultsTable)
        self.baseline_ms = s.get("baseline_ms")
        self.strategy = s["strategy"]
        table.baseline_ms = self.baseline_ms
        table.vacuous = vacuous_why(self.data)
        self._add_versions()
        mark = self.store.last_result()  # every read of the stored results stops here: the engine adds after it
        total = self.data.count_results(upto=mark)
        if s.get("best_key") and s.get("best_ms") is not None:
            table.best_key = table.row_key(s.get("best_version"), s["best_key"])
            self.best = (s["best_key"], s["best_ms"])
        first = min(max(self.app.size.height, 20), table.MAX_ROWS)  # the rows a screen can show
        table.put_stored(self.data.fastest(first, upto=mark), total)
        table.find_stored = self._find_stored
        self.after_first_frame(self._read_calls)
        self.steps = self.data.steps()  # once here, shown with the Plan tab; then kept up to date from the step events
        if self.best:
            table.mark_best(table.best_key)
            self._best_version(s.get("best_version"))
        if total:
            self.unplotted = []
            self.query_one(TuningPlot).reading = total
            self.query_one(TuningPlot).redraw()
            self.after_first_frame(self._read_stored, mark, table.MAX_ROWS if total > table.row_count else 0)
        self._show_progress()

    def _find_stored(self, vid: str, params: dict) -> Result | None:
        """A stored result not loaded, that a gate asks about: one read by its configuration's key."""
        names = self.table.version_params.get(vid) or []
        if not names or any(n not in params for n in names):
            return None
        r = self.data.result(vid, config_key(names, params))
        return r if r is not None and r.params == params else None

    @work(thread=True, group="calls")
    def _read_calls(self) -> None:
        calls = self.data.llm_calls()
        if calls:
            self.post_message(StoredCalls(calls))

    def on_stored_calls(self, message: StoredCalls) -> None:
        """The LLM tab of a resumed session: every stored call, failed attempts too, before the new ones."""
        log = self.llm_log
        for c in message.calls:
            for line in call_lines(c):
                log.write(line)

    @work(thread=True, group="stored")
    def _read_stored(self, mark: int, rows: int) -> None:
        reference = (self.data.versions()[0]["id"], self.table.reference_key or "")
        read_stored(self.store, self.data.sid, mark, rows, self.post_message, reference)

    def on_stored_rows(self, message: StoredRows) -> None:
        self.table.add_stored(message.rows)
        self._show_progress()

    def on_stored_points(self, message: StoredPoints) -> None:
        self.plotted = message.plotted
        self.query_one(TuningPlot).load(message.points)
        unplotted, self.unplotted = self.unplotted or [], None
        for r, vid in unplotted:
            self._plot(r, vid)
        self.query_one(TuningPlot).redraw()
        freeze_heap()  # the plot's index of every stored configuration stays for the session

    def _plot(self, r: Result, vid: str | None) -> None:
        """A result on the plot, in its version's colour: a new point, or a configuration measured
        again (a check) changes its point in place."""
        if self.unplotted is not None:  # the stored points are still being read
            self.unplotted.append((r, vid))
            return
        plot = self.query_one(TuningPlot)
        i = self.plotted.get((vid, r.key))
        ref = self.table.row_key(vid, r.key) == self.table.reference_key
        if i is None:
            self.plotted[(vid, r.key)] = len(plot.times)
            plot.add(_plotted(r, ref), vid)
        else:
            plot.set(i, _plotted(r, ref))


def _plotted(r: Result, is_reference: bool = False) -> float | None:
    """What the plot shows of a result: its time when it is trusted (records.trusted)."""
    return r.time_ms if trusted(r, is_reference) else None
