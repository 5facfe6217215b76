"""The help page says where the gate's panel is as the screen is laid out now: at the top below 120
columns (the source pane folded away), at the top right beside the source pane."""

from __future__ import annotations

import pytest

from .test_keys_and_80x24 import still_at
from .test_snapshots import GATES, session_app


async def help_says(pilot) -> str:
    pilot.app.screen.action_help()
    await pilot.pause()
    text = str(pilot.app.screen.query_one("#help-text").render())
    await pilot.press("escape")
    return text


@pytest.mark.parametrize(("size", "where"), [((80, 24), "top says"), ((140, 40), "top right says")])
async def test_help_names_where_the_panel_is_at_this_width(tmp_path, size, where):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=size) as pilot:
        await still_at(pilot, GATES["sweep"])
        assert f"The panel at the {where}" in await help_says(pilot)


async def test_at_80_columns_the_source_pane_shown_puts_the_panel_at_the_top_right(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        await pilot.press("c")
        await pilot.pause()
        assert screen.query_one("#left").display
        assert "The panel at the top right says" in await help_says(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert "The panel at the top says" in await help_says(pilot)
