"""What a new user's walk through the app at 80x24 found (a sweep in sim mode, stop and undo,
autopilot): each test drives the screen as the walk did."""

from __future__ import annotations

from kt_tui.ui import deciding
from kt_tui.ui.profile_tab import ProfileView
from kt_tui.ui.widgets import GatePanel, ResultsTable

from ..conftest import EXAMPLES, ROOT
from .test_keys_and_80x24 import panel_lines
from .test_no_gpu_ui import copied
from .test_ui import Keys, gate_key, new_app, wait_for


def matmul_paced(monkeypatch):
    """A sweep of examples/matmul.cu replayed at 0.3 s a configuration: slow enough to act on."""
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.3")
    return new_app(EXAMPLES / "matmul.cu")


async def until_the_tune(real, screen) -> None:
    """Approve the sweep's gate and wait until its tune (after the baseline) runs."""
    await wait_for(real, lambda: gate_key(screen) == "sweep:1")
    await Keys(real).press("s")
    await wait_for(real, lambda: screen.state == "running" and screen.run_info.get("kind") == "tune", timeout=60)


async def test_the_panel_names_the_run_going_on_not_the_one_before(monkeypatch):
    """The sweep runs the baseline, then the tune: the panel said "Running baseline" for the
    whole tune, since both runs set the same activity and the panel was not drawn again."""
    app = matmul_paced(monkeypatch)
    async with app.run_test(size=(80, 24)) as real:
        pilot, screen = Keys(real), app.screen
        await until_the_tune(real, screen)
        await real.pause()
        assert "Running tune of original" in panel_lines(screen)[0]
        await pilot.press("q")


def _profile_text(app) -> str:
    return str(app.screen.query_one("#profile-text").render())


async def test_the_profile_tab_of_a_replay_does_not_promise_a_profile():
    """A finished replay of a recording without profiles said "No profiles yet: ... profiled with
    Nsight Compute after a run": none ever comes, since a replay runs nothing."""
    app = new_app(EXAMPLES / "vector_add.cu", max_configs=2)
    async with app.run_test(size=(80, 24)) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) is not None)
        await Keys(real).press("s")
        await wait_for(real, lambda: screen.state in ("finished", "failed", "error"))
        await wait_for(real, lambda: screen.query(ProfileView) and "Device" in _profile_text(app))
        text = _profile_text(app)
        assert "a replay runs nothing" in text and "after a run" not in text
        await Keys(real).press("q")


async def test_the_profile_tab_without_a_gpu_says_when_profiles_come(tmp_path):
    app = new_app(copied(tmp_path, "vector_add"), backend="none")
    async with app.run_test(size=(80, 24)) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) is not None)
        await Keys(real).press("s")
        await wait_for(real, lambda: screen.state in ("unmeasured", "finished", "failed", "error"))
        await wait_for(real, lambda: screen.query(ProfileView) and "Device" in _profile_text(app))
        text = _profile_text(app)
        assert "resumed on a GPU" in text and "after a run" not in text
        await Keys(real).press("q")


async def test_a_speedup_that_arrives_after_its_row_is_shown_whole():
    """The H100 recording's one configuration at 80x24: its speedup read "1" where "1.00x" belongs."""
    h100 = ROOT / "tests" / "fixtures" / "h100-2026-12-06"
    app = new_app(h100 / "vadd.cu", sim_cache=str(h100 / "recorded"))
    async with app.run_test(size=(80, 24)) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) is not None)
        await Keys(real).press("s")
        await wait_for(real, lambda: screen.state in ("finished", "failed", "error"))
        table = screen.query_one(ResultsTable)
        await wait_for(real, lambda: table.peak_of is not None)
        await real.pause()
        for column, text in (("speedup", "1.00x"), ("peak", "~92%")):
            assert table.columns[column].get_render_width(table) - 2 * table.cell_padding >= len(text), column
        await Keys(real).press("q")


async def test_undoing_a_stop_of_the_run_gives_the_autopilot_back(monkeypatch):
    """Autopilot on, x during the tune, then u: the run went on, but the autopilot stayed off."""
    monkeypatch.setenv("KT_TUI_UNDO_S", "30")
    app = matmul_paced(monkeypatch)
    async with app.run_test(size=(80, 24)) as real:
        pilot, screen = Keys(real), app.screen
        await until_the_tune(real, screen)
        screen.autopilot = True
        screen.query_one(GatePanel).focus()
        await pilot.press("x")
        assert screen.held is not None and not screen.autopilot  # the stop is held; the autopilot waits
        await pilot.press("u")
        assert screen.held is None and screen.autopilot and not screen.stopping
        await pilot.press("x")
        deciding.send_held(screen)  # the stop goes: the autopilot is off for good
        assert screen.stopping and not screen.autopilot
        await pilot.press("q")
