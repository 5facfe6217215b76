"""A resumed session's stored part on the session screen: what its first frame shows, the rest of
its rows and plot points read on a thread (ui/stored.py), its stored LLM calls, and the plot's
points as results come."""

from __future__ import annotations

import gc
import json

from rich.text import Text
from textual.message import Message

from ..engine.strength import vacuous_why
from ..records import Result, config_key, trusted
from ..words import counted, plural
from .plot import TuningPlot
from .results import short_label
from .session_panes import show_source
from .stored import StoredPoints, read_stored

PROMPT_SHOWN = 1500  # characters of each stored prompt the LLM tab shows


class StoredCalls(Message):
    def __init__(self, calls: list[dict]) -> None:
        super().__init__()
        self.calls = calls


def param_names(spec_json: str) -> list[str]:
    """The tuned parameters' names of a stored spec, read before it is checked ([] if it cannot say)."""
    try:
        plain = json.loads(spec_json)
    except ValueError:
        return []
    params = plain.get("tune_params") if isinstance(plain, dict) else None
    return [str(n) for n in params] if isinstance(params, dict) else []


def call_lines(c: dict) -> list[Text | str]:
    """One stored LLM call as the LLM tab shows it: what was asked, what came back or went wrong."""
    tokens = f", {counted(c['tokens_in'] or 0, 'token')} in, {c['tokens_out'] or 0} out" if c.get("tokens_in") else ""
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
            Text(
                "asked: " + asked[:PROMPT_SHOWN] + (f"… ({more} more {plural(more, 'character')})" if more > 0 else ""),
                style="dim",
            )
        )
    if c.get("reply"):
        out.append(str(c["reply"]))
    if c.get("error"):
        out.append(Text(f"failed: {c['error']}", style="red"))
    return out


def freeze_heap() -> None:
    """Takes the objects alive now out of the garbage collector's full passes. A full pass walks
    every container object: with the imported modules, Textual's widgets and styles and a big
    session's plot index it took 90-135 ms of CPU (0.3-1 s on a busy 2-core machine), paid by
    whichever key or modal open it fell on. Objects made later are collected as before."""
    gc.freeze()


def unfreeze() -> None:
    gc.unfreeze()  # what was frozen and is garbage now can go


def load(screen) -> None:
    """What the first frame shows: the session, its plan, its best and the top of the table.
    The rest of the table and the plot's points are read on a thread (ui/stored.py)."""
    data = screen.data
    s = data.session()
    table = screen.table
    screen.baseline_ms = s.get("baseline_ms")
    screen.strategy = s["strategy"]
    table.baseline_ms = screen.baseline_ms
    table.vacuous = vacuous_why(data)
    add_versions(screen)
    mark = screen.store.last_result()  # every read of the stored results stops here: the engine adds after it
    total = data.count_results(upto=mark)
    if s.get("best_key") and s.get("best_ms") is not None:
        table.best_key = table.row_key(s.get("best_version"), s["best_key"])
        screen.best = (s["best_key"], s["best_ms"])
    first = min(max(screen.app.size.height, 20), table.MAX_ROWS)  # the rows a screen can show
    table.put_stored(data.fastest(first, upto=mark), total)
    table.find_stored = lambda vid, params: find_stored(screen, vid, params)
    screen.after_first_frame(lambda: screen.run_worker(lambda: _read_calls(screen), thread=True, group="calls"))
    screen.steps = data.steps()  # once here, shown with the Plan tab; then kept up to date from the step events
    if screen.best:
        table.mark_best(table.best_key)
        best_version(screen, s.get("best_version"))
    if total:
        screen.unplotted = []
        plotted = screen.query_one(TuningPlot)
        plotted.reading = total
        plotted.redraw()
        rows = table.MAX_ROWS if total > table.row_count else 0
        screen.after_first_frame(
            lambda: screen.run_worker(lambda: _read_stored(screen, mark, rows), thread=True, group="stored")
        )
    screen._show_progress()


def add_versions(screen, vid: str | None = None) -> None:
    """Tell the table about kernel versions it does not know yet (read once per version)."""
    table = screen.table
    if not screen.sid or (vid is not None and vid in table.labels):
        return
    for v in screen.data.versions():
        if v["id"] not in table.labels:
            names = list(json.loads(v["spec_json"]).get("tune_params", {}))
            table.add_version(v["id"], short_label(v["label"], v["id"]), names)


def best_version(screen, vid: str | None) -> None:
    if vid and vid != screen.best_version:
        screen.best_version = vid
        show_source(screen)


def find_stored(screen, vid: str, params: dict) -> Result | None:
    """A stored result not loaded, that a gate asks about: one read by its configuration's key."""
    names = screen.table.version_params.get(vid) or []
    if not names or any(n not in params for n in names):
        return None
    r = screen.data.result(vid, config_key(names, params))
    return r if r is not None and r.params == params else None


def _read_calls(screen) -> None:
    calls = screen.data.llm_calls()
    if calls:
        screen.post_message(StoredCalls(calls))


def show_calls(screen, calls: list[dict]) -> None:
    """The LLM tab of a resumed session: every stored call, failed attempts too, before the new ones."""
    log = screen.llm_log
    for c in calls:
        for line in call_lines(c):
            log.write(line)


def _read_stored(screen, mark: int, rows: int) -> None:
    reference = (screen.data.versions()[0]["id"], screen.table.reference_key or "")
    read_stored(screen.store, screen.data.sid, mark, rows, screen.post_message, reference)


def show_points(screen, message: StoredPoints) -> None:
    screen.plotted = message.plotted
    screen.query_one(TuningPlot).load(message.points)
    unplotted, screen.unplotted = screen.unplotted or [], None
    for r, vid in unplotted:
        plot(screen, r, vid)
    screen.query_one(TuningPlot).redraw()
    freeze_heap()  # the plot's index of every stored configuration stays for the session


def plot(screen, r: Result, vid: str | None) -> None:
    """A result on the plot, in its version's colour: a new point, or a configuration measured
    again (a check) changes its point in place."""
    if screen.unplotted is not None:  # the stored points are still being read
        screen.unplotted.append((r, vid))
        return
    points = screen.query_one(TuningPlot)
    i = screen.plotted.get((vid, r.key))
    ref = screen.table.row_key(vid, r.key) == screen.table.reference_key
    if i is None:
        screen.plotted[(vid, r.key)] = len(points.times)
        points.add(_plotted(r, ref), vid)
    else:
        points.set(i, _plotted(r, ref))


def _plotted(r: Result, is_reference: bool = False) -> float | None:
    """What the plot shows of a result: its time when it is trusted (records.trusted)."""
    return r.time_ms if trusted(r, is_reference) else None
