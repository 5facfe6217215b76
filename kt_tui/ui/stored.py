"""A resumed session's stored results that its first frame does without: the rest of the table's
rows and the plot's points, read on a thread and handed to the screen as messages."""

from __future__ import annotations

import time

from textual.message import Message

from ..records import Result
from ..store import Store
from .plot import StoredColumns


class StoredRows(Message):
    """The table's rows: the store's fastest, the first frame's among them."""

    def __init__(self, rows: list[Result]) -> None:
        super().__init__()
        self.rows = rows


class StoredPoints(Message):
    """The plot's points, ready to draw, and where each configuration's point is: (version, key) -> index."""

    def __init__(self, points: StoredColumns, plotted: dict[tuple[str | None, str], int]) -> None:
        super().__init__()
        self.points, self.plotted = points, plotted


def read_stored(store: Store, sid: str, mark: int, rows: int, post, reference: tuple = ("", "")) -> None:
    """On a thread: `rows` of the fastest results, then every result's point, stored up to `mark`.
    It shares the interpreter with the UI thread: no loop in Python over 100,000 results, no call
    into C over all of them at once (it would hold the interpreter), and a pause after each page."""
    if rows:
        post(StoredRows(store.fastest(sid, rows, upto=mark)))
    vids: list[str | None] = []
    times: list[float | None] = []
    plotted: dict[tuple[str | None, str], int] = {}
    for page_vids, page_keys, page_times in store.plot_pages(sid, upto=mark, size=1000, reference=reference):
        plotted.update(zip(zip(page_vids, page_keys), range(len(vids), len(vids) + len(page_keys))))
        vids += page_vids
        times += page_times
        time.sleep(0.002)
    post(StoredPoints(StoredColumns(times, vids), plotted))
