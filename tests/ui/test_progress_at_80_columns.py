"""At 80 columns the Results tab's progress line shows the best, the speedup and the time (the
run's progress, which the status bar says too, used to push them past the edge)."""

from __future__ import annotations

import time

from kt_tui.ui.status import StatusBar, progress_text
from kt_tui.ui.widgets import ProgressLine

from .test_keys_and_80x24 import still_at
from .test_snapshots import GATES, session_app


def shown(widget) -> str:
    return widget.render_line(0).text


async def progress_at(tmp_path, width: int) -> tuple[str, str, str]:
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(width, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        screen.run_info = {"version": "v0", "kind": "tune", "total": 17, "done": 5, "known": 1}
        screen.run_info.update(started=time.monotonic(), paused_s=0.0, restricted=True)
        screen.best, screen.baseline_ms = ("original", 0.05), 0.08
        screen._show_progress()
        await pilot.pause()
        return shown(screen.query_one(ProgressLine)), shown(screen.query_one(StatusBar)), progress_text(screen)


async def test_at_80_columns_the_best_and_the_speedup_are_on_screen(tmp_path):
    line, status, _ = await progress_at(tmp_path, 80)
    assert "best 0.0500 ms (original)" in line and "1.60x over baseline 0.0800 ms" in line, line
    assert "s elapsed" in line, line
    assert "5 of 17 configurations" in status, status


async def test_wide_the_best_shows_beside_the_source_pane_and_with_room_the_runs_progress_too(tmp_path):
    line, _, roomy = await progress_at(tmp_path, 160)
    assert "best 0.0500 ms (original)" in line, line
    assert roomy.startswith("original tune: 5 of 17 configurations (1 measured before) (after restrictions)  ·  ")
    assert "best 0.0500 ms" in roomy, roomy
