"""At 80x24 the results table shows three rows: as faster configurations come in, a cursor on the
first row stays on the first row, so the fastest stay in view and the line under the table shows
the fastest (the cursor used to follow the original down, and the view with it: "fastest first"
over rows at 1.29x while the best was 3.65x). A cursor the user moved elsewhere stays on its row."""

from __future__ import annotations

from kt_tui.engine.events import event_from
from kt_tui.ui.bridge import Flush
from kt_tui.ui.widgets import ResultsTable, RowDetail

from .test_keys_and_80x24 import _result, order, still_at
from .test_snapshots import GATES, session_app


def put(screen, *results) -> None:
    for key, ms in results:
        screen.bridge.on_event(event_from("result", {"result": _result(key, ms), "version": "v0"}))
    screen.on_flush(Flush())


async def test_faster_results_keep_the_view_and_the_cursor_on_the_fastest(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        table = screen.query_one(ResultsTable)
        table.move_cursor(row=0)
        await pilot.pause()
        put(screen, *((str(40 + i), 0.05 - 0.002 * i) for i in range(12)))  # each faster than the last
        await pilot.pause()
        fastest = order(table)[0]
        assert fastest.startswith("51,") and table.cursor_row == 0 and table.scroll_y == 0
        assert "block_size_x=51" in str(screen.query_one(RowDetail).render())


async def test_a_cursor_moved_down_stays_on_its_row(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        table = screen.query_one(ResultsTable)
        table.move_cursor(row=1)
        mine = order(table)[1]
        put(screen, ("40", 0.001), ("41", 0.002))
        await pilot.pause()
        assert order(table)[table.cursor_row] == mine and table.cursor_row > 1 and order(table)[0].startswith("40,")
