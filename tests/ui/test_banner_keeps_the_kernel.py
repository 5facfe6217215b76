"""The banner at 80 columns and less: the kernel's name is what it keeps longest (the strategy, the
recording's date and the words around the GPU and the session go first)."""

from __future__ import annotations

from textual.app import App

from kt_tui.engine.backend import BackendChoice
from kt_tui.ui.widgets import Banner


class BannerApp(App[None]):
    def __init__(self, label: str) -> None:
        super().__init__()
        self.label = label

    def compose(self):
        yield Banner(self.label, id="banner")


async def banner_at(width: int, label: str) -> str:
    app = BannerApp(label)
    async with app.run_test(size=(width, 5)) as pilot:
        banner = app.query_one(Banner)
        banner.choice = BackendChoice("sim", "NVIDIA H200 (recorded 2026-11-22)")
        banner.sid, banner.state, banner.strategy = "s0001", "waiting", "config-search"
        await pilot.pause()
        text = banner.render()
        assert text.cell_len <= width, text.plain
        return text.plain


async def test_at_80_columns_the_kernel_stays_and_the_strategy_goes():
    shown = await banner_at(80, "convolution_tiled.cu")
    for part in ("convolution_tiled.cu", "SIMULATED", "NVIDIA H200", "s0001", "waiting"):
        assert part in shown, shown
    assert "config-search" not in shown, shown


async def test_with_room_everything_shows():
    shown = await banner_at(140, "convolution_tiled.cu")
    for part in ("convolution_tiled.cu", "recorded 2026-11-22", "session s0001 · waiting", "strategy: config-search"):
        assert part in shown, shown


async def test_at_60_columns_the_session_id_goes_before_the_kernel():
    shown = await banner_at(60, "convolution_tiled.cu")
    for part in ("convolution_tiled.cu", "SIMULATED", "NVIDIA H200", "waiting"):
        assert part in shown, shown


async def test_a_kernel_name_longer_than_the_room_is_cut_in_its_middle():
    shown = await banner_at(50, "a_very_long_kernel_file_name_for_the_banner_test.cu")
    assert "a_very" in shown and "est.cu" in shown and "…" in shown and "waiting" in shown, shown
