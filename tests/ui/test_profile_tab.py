"""The Profile tab and the table's %peak column (issue 39), on a replay of the recording made on an
NVIDIA H100 80GB HBM3 on 2026-12-06 (tests/fixtures/h100-2026-12-06), and on an H200 recording
that has no device facts."""

from kt_tui.ui.profile_tab import ProfileView
from kt_tui.ui.widgets import ResultsTable

from ..conftest import EXAMPLES, ROOT
from .test_ui import SIZE, gate_key, new_app, wait_for

H100 = ROOT / "tests" / "fixtures" / "h100-2026-12-06"


def _profile_text(app) -> str:
    return str(app.screen.query_one("#profile-text").render())


async def test_the_profile_tab_shows_the_facts_and_the_baselines_profile_and_the_table_its_share_of_peak():
    app = new_app(H100 / "vadd.cu", sim_cache=str(H100 / "recorded"))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        await pilot.press("s")  # the sweep's gate: start
        await wait_for(pilot, lambda: screen.state in ("finished", "failed", "error"))
        await wait_for(pilot, lambda: screen.query(ProfileView) and "DRAM" in _profile_text(app))
        text = _profile_text(app)
        assert "NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs" in text
        assert "measured peaks: copy 3024 GB/s" in text
        assert "SM 41 %, DRAM 82 % of peak; occupancy 76 % of 100 % theoretical" in text
        assert "ncu CPIStall (est. 84 %)" in text
        table = screen.query_one(ResultsTable)
        key = table._row_keys()[0]
        assert str(table.get_cell(key, "peak")) == "~92%"  # 2771 GB/s of 3024, the bytes estimated
        await pilot.press("5")
        await pilot.press("q")


async def test_an_h200_recording_without_facts_shows_no_share_of_peak():
    app = new_app(EXAMPLES / "vector_add.cu", max_configs=2)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.state in ("finished", "failed", "error"))
        await wait_for(pilot, lambda: screen.query(ProfileView) and "Device" in _profile_text(app))
        text = _profile_text(app)
        assert "NVIDIA H200 (recorded 2026-11-22): device facts not recorded" in text and "H100" not in text
        table = screen.query_one(ResultsTable)
        assert "peak" not in {c.value for c in table.columns}  # no facts: no column to fill with dashes
        await pilot.press("q")
