"""The LLM tab is never a blank pane: its first line says what shows there and when it stays empty
(a sweep asks the LLM nothing; with no LLM connected nothing is asked)."""

from __future__ import annotations

from textual.widgets import RichLog

from .test_keys_and_80x24 import still_at
from .test_snapshots import GATES, session_app


async def test_the_llm_tab_of_a_session_without_calls_says_why_it_is_empty(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        await pilot.press("4")
        await pilot.pause()
        log = screen.query_one("#llm-log", RichLog)
        shown = " ".join(line.text for line in log.lines)
        assert "Each LLM call of this session shows here" in shown and "no LLM connected" in shown, shown
