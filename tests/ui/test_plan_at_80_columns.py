"""The Plan tab at 80x24 shows each step's why whole: it wraps in a column sized to the width, as
does a long title (before, the why column began past the 80th column: "the kernel is unchanged"
showed as "th")."""

from __future__ import annotations

from .test_keys_and_80x24 import still_at
from .test_snapshots import GATES, session_app

STEPS = [
    {
        "id": "block_xy",
        "title": "Tunable block size in x and y",
        "state": "skipped",
        "reason": "generated kernel skipped",
    },
    {
        "id": "two_per_thread",
        "title": "Two elements per thread",
        "state": "skipped",
        "reason": "the kernel is unchanged",
    },
    {
        "id": "n_per_thread",
        "title": "N elements per thread, N tunable",
        "state": "skipped",
        "reason": "depends on two_per_thread, which was skipped",
    },
    {"id": "register_tile_2d", "title": "2-D register tiling", "state": "proposed", "reason": ""},
]


def drawn(widget) -> str:
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


async def test_every_steps_why_shows_whole_at_80x24(tmp_path):
    from kt_tui.ui.gate_view import PlanView

    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        await pilot.press("2")
        plan = screen.query_one(PlanView)
        plan.show(STEPS)
        await pilot.pause()
        text = drawn(plan)
        assert plan.region.right <= 80
        words = " ".join(text.split())
        for said in ("generated kernel skipped", "the kernel is unchanged", "N elements per thread, N tunable"):
            assert all(w in words for w in said.split()), text
        assert "depends on" in text and "which was skipped" in text, text
        assert plan.virtual_size.width <= plan.size.width, (plan.virtual_size, plan.size)  # nothing off to the right
