"""What a new user's walk through the app at 80x24 found (a sweep in sim mode, stop and undo,
autopilot): each test drives the screen as the walk did."""

from __future__ import annotations

from ..conftest import EXAMPLES
from .test_keys_and_80x24 import panel_lines
from .test_ui import Keys, gate_key, new_app, wait_for


async def test_the_panel_names_the_run_going_on_not_the_one_before(monkeypatch):
    """The sweep runs the baseline, then the tune: the panel said "Running baseline" for the
    whole tune, since both runs set the same activity and the panel was not drawn again."""
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.3")
    app = new_app(EXAMPLES / "matmul.cu")
    async with app.run_test(size=(80, 24)) as real:
        pilot, screen = Keys(real), app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        await pilot.press("s")
        await wait_for(real, lambda: screen.run_info.get("kind") == "tune", timeout=60)
        await real.pause()
        assert "Running tune of original" in panel_lines(screen)[0]
        await pilot.press("q")
