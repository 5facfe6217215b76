"""j/k and g/G scroll every scrolling view as the arrows and home/end do (README, "Keys you can
trust"): the help page, the LLM log, the kernel view, the source pane, the modal reports and the
pickers' lists."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import OptionList, RichLog

from kt_tui.ui.keys import HelpScreen
from kt_tui.ui.report_screen import ReportScreen
from kt_tui.ui.strategy_picker import StrategyPicker
from kt_tui.ui.widgets import SourceView

from .test_keys_and_80x24 import still_at
from .test_snapshots import GATES, session_app


async def _scrolls(pilot, view) -> None:
    """j, G, k and g move `view` (focused, taller than its window) and decide nothing."""
    view.focus()
    view.scroll_to(y=0, animate=False)
    await pilot.pause()
    assert view.max_scroll_y > 2, "the view must be taller than its window for this test"
    await pilot.press("j")
    assert view.scroll_y == 1
    await pilot.press("G")
    assert view.scroll_y == view.max_scroll_y
    await pilot.press("k")
    assert view.scroll_y == view.max_scroll_y - 1
    await pilot.press("g")
    assert view.scroll_y == 0


async def test_the_help_page_scrolls_with_j_k_g_and_G_at_80x24(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        screen.action_help()
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await _scrolls(pilot, app.screen.query_one(VerticalScroll))
        assert screen.held is None and screen.gate is GATES["sweep"]
        await pilot.press("escape")


async def test_the_llm_log_kernel_view_and_source_scroll_with_j_k_g_and_G(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(120, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        log = screen.query_one("#llm-log", RichLog)
        screen.query_one("#tabs").active = "tab-llm"
        for i in range(200):
            log.write(f"reply line {i}")
        await pilot.pause()
        await _scrolls(pilot, log)
        screen.query_one("#tabs").active = "tab-kernel"
        screen.query_one("#kernel-view").update("\n".join(f"code line {i}" for i in range(200)))
        await pilot.pause()
        await _scrolls(pilot, screen.query_one("#kernel-view").parent)
        screen.query_one(SourceView).show("\n".join(f"int line{i};" for i in range(200)))
        await pilot.pause()
        await _scrolls(pilot, screen.query_one("#source-scroll"))
        assert screen.held is None and screen.gate is GATES["sweep"]


async def test_a_report_scrolls_with_j_and_G(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await still_at(pilot, GATES["sweep"])
        app.push_screen(ReportScreen("memcheck: 2 error(s)", "\n".join(f"error {i}" for i in range(100))))
        await pilot.pause()
        await _scrolls(pilot, app.screen.query_one(VerticalScroll))


async def test_the_strategy_picker_moves_with_j_k_g_and_G(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await still_at(pilot, GATES["sweep"])
        app.push_screen(StrategyPicker("sweep"))
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        assert options.has_focus and options.highlighted == 0
        await pilot.press("j", "j")
        assert options.highlighted == 2
        await pilot.press("k")
        assert options.highlighted == 1
        await pilot.press("G")
        assert options.highlighted == options.option_count - 1
        await pilot.press("g")
        assert options.highlighted == 0
        assert isinstance(app.screen, StrategyPicker)  # moving chose nothing
