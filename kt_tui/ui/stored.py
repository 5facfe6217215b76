"""A resumed session's stored results that its first frame does without: the rest of the table's
rows and the plot's points, read on a thread and handed to the screen as messages."""

from __future__ import annotations

import time

from textual.message import Message

from ..store import Store
from .plot import StoredColumns


class StoredRows(Message):
    """The table's rows: the store's fastest, the first frame's among them."""

    def __init__(self, rows: list[dict]) -> None:
        super().__init__()
        self.rows = rows


class StoredPoints(Message):
    """The plot's points, ready to draw, and where each configuration's point is: (version, key) -> index."""

    def __init__(self, points: StoredColumns, plotted: dict[tuple, int]) -> None:
        super().__init__()
        self.points, self.plotted = points, plotted


def read_stored(store: Store, sid: str, mark: int, rows: int, post) -> None:
    """On a thread: `rows` of the fastest results, then every result's point, stored up to `mark`.
    It shares the interpreter with the UI thread: no loop in Python over 100,000 results, and a
    pause after each page of them, so that the UI thread gets its turns at once."""
    if rows:
        post(StoredRows(store.fastest(sid, rows, upto=mark)))
    vids, keys, times = [], [], []
    for page_vids, page_keys, page_times in store.plot_pages(sid, upto=mark, size=1000):
        vids += page_vids
        keys += page_keys
        times += page_times
        time.sleep(0.002)
    plotted = dict(zip(zip(vids, keys), range(len(keys))))
    post(StoredPoints(StoredColumns(times, vids), plotted))
