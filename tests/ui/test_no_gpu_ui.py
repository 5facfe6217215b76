"""The TUI with `--backend none`: a kernel with no GPU and no recorded cache still goes through its
gates and ends waiting for a GPU (not "Cannot go on"); the fatal screen's quits exit 2."""

import shutil

from kt_tui.store import Store

from ..conftest import EXAMPLES
from .test_ui import SIZE, gate_key, new_app, wait_for


def copied(tmp_path, name: str):
    for f in (f"{name}.cu", f"{name}.cu.toml"):
        shutil.copy(EXAMPLES / f, tmp_path / f)  # no recorded/ beside the copy: nothing to replay
    return tmp_path / f"{name}.cu"


async def test_no_gpu_in_the_tui_ends_waiting_for_one(tmp_path):
    app = new_app(copied(tmp_path, "vector_add"), backend="none")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None or screen.state == "error")
        assert screen.state != "error", screen.problem
        assert "no GPU" in str(screen.query_one("#banner").render())
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.state in ("unmeasured", "finished", "failed", "error"))
        assert screen.state == "unmeasured"
        await pilot.pause()
        panel = str(screen.query_one("#gate").render())
        status = str(screen.query_one("#status").render())
        assert "UNMEASURED" in status and "not measured (no GPU)" in status, status
        sid = screen.sid
        await pilot.press("q")
    assert app.return_code in (None, 0)
    store = Store(app.settings.db)
    assert store.session(sid)["state"] == "unmeasured"
    assert {r.state for r in store.runs(sid)} == {"not measured"}
    assert f"kt-tui resume {sid} --backend pycuda" in panel


async def test_ctrl_q_on_the_fatal_screen_exits_2(tmp_path):
    app = new_app(copied(tmp_path, "vector_add"))  # sim, but no recorded cache beside this copy
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.state == "error")
        await pilot.press("ctrl+q")
    assert app.return_code == 2


def test_an_unmeasured_accept_gate_says_there_is_no_time_to_compare():
    from kt_tui.engine.gates import AcceptGate
    from kt_tui.ui.gate_view import render_gate

    gate = AcceptGate(
        key="accept:1:unmeasured",
        title="Keep step 1 for a GPU? not measured: no time to compare",
        step="1",
        recommend=True,
        effect="there is no time to compare (no GPU here). Accept keeps this kernel",
        verified="not checked: no GPU",
        unmeasured=True,
    )
    text = render_gate(gate)
    assert "NOT MEASURED" in text.plain and "threshold says" not in text.plain
    assert "not checked: no GPU" in text.plain
    said = next(s for s in text.spans if text.plain[s.start : s.end].startswith("At the spec's size: not checked"))
    assert "green" not in str(said.style)  # never shown as passed
    assert gate.auto() == ("approve", "step 1: not measured (no GPU here): kept, asked again once measured")
