"""What a new user's walk at 80x24 (tmux, sim replays) still found: the accept gate's panel names the
candidate and the best first, the banner keeps the session id, the GPU and the state, the spec
editor's footer names escape, the undo counts down, and `kt-tui sessions | cat` does not wrap."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from textual.widgets._footer import FooterKey

from kt_tui.engine.backend import BackendChoice
from kt_tui.store import Store
from kt_tui.ui.setup_screens import SpecEditScreen
from kt_tui.ui.widgets import GatePanel

from ..conftest import EXAMPLES, ROOT
from .test_keys_and_80x24 import panel_lines, still_at
from .test_snapshots import GATES, session_app
from .test_ui import Keys, gate_key, new_app, wait_for


async def test_the_accept_gate_names_the_candidate_and_the_best_in_its_first_lines(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["accept"])
        first = "\n".join(panel_lines(screen)[:5])
        assert "Candidate step 1: 0.0500 ms, 1.60x over the baseline" in first, first
        assert "Best now: original, 0.0800 ms" in first and "configuration: block_size_x=16" in first, first


async def test_at_80_columns_the_banner_keeps_the_session_id_the_gpu_and_the_state(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        screen.choice = BackendChoice("sim", "NVIDIA H200 (recorded 2026-11-22)")  # as a recorded cache names it
        await pilot.pause()
        banner = screen.query_one("#banner")
        text = banner.render()
        assert text.cell_len <= banner.size.width == 80, text.plain
        for shown in ("s0001", "NVIDIA H200", "SIMULATED", "waiting"):
            assert shown in text.plain, text.plain


async def test_at_80x24_the_spec_editors_footer_names_every_key(tmp_path):
    cu = tmp_path / "scale.cu"
    cu.write_text((EXAMPLES / "vector_add.cu").read_text())
    app = new_app(cu)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SpecEditScreen))
        await pilot.pause()
        keys = {k.key_display: k for k in app.screen.query(FooterKey)}
        assert {"esc", "^s", "^k"} <= set(keys), keys
        for key in keys.values():
            assert key.region.right <= 80 and key.description, (key.key_display, key.region)
        await pilot.press("escape")


async def test_the_undo_of_a_held_skip_counts_down(monkeypatch):
    monkeypatch.setenv("KT_TUI_UNDO_S", "6")
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=(80, 24)) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) is not None)
        screen.query_one(GatePanel).focus()
        await Keys(real).press("n")
        assert screen.held is not None
        first = "\n".join(panel_lines(screen))
        assert "sent in 6 s" in first, first
        await asyncio.sleep(2.2)
        later = "\n".join(panel_lines(screen))
        assert "sent in 4 s" in later or "sent in 3 s" in later, later
        await Keys(real).press("u")
        await Keys(real).press("q")


def test_kt_tui_sessions_into_a_pipe_fits_80_columns(hermetic):
    store = Store(hermetic / "sessions.db")
    for i, (kernel, gpu) in enumerate((("vector_add.cu", "NVIDIA H200 (recorded 2026-11-22)"), ("matmul.cu", None))):
        store.create_session(
            id=f"a{i}b2c3d4",
            kernel_path=f"/work/examples/{kernel}",
            state="finished",
            gpu=gpu,
            simulated=int(gpu is not None),
            baseline_ms=0.08,
            best_ms=0.05,
            created="2026-11-20 10:00:00",
        )
    path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, "-m", "kt_tui", "sessions"], stdout=subprocess.PIPE, text=True, env=env, timeout=60
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and len(lines) == 4, done.stdout
    assert all(len(line) <= 80 for line in lines[1:]), "\n".join(lines)  # the first names the database
    rows = {line.split()[0]: line for line in lines[2:]}
    assert "SIMULATED NVIDIA H200" in rows["a0b2c3d4"] and "2026-11-20 10:00" in rows["a0b2c3d4"]
    assert rows["a0b2c3d4"].endswith("0.0500") and "finished" in rows["a1b2c3d4"]
