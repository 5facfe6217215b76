"""`q` leaves a session with a last line saying how to come back to it, as a Ctrl-C does: the
session's id and the command (before, the shell got nothing, and a new user lost the id)."""

from __future__ import annotations

from ..conftest import EXAMPLES
from .test_ui import SIZE, Keys, gate_key, new_app, wait_for


def _said(app) -> list[str]:
    said: list[str] = []
    exit_app = app.exit
    app.exit = lambda *a, **k: said.append(str(k.get("message") or "")) or exit_app(*a, **k)
    return said


async def test_q_at_a_gate_names_the_session_and_the_resume_command():
    app = new_app(EXAMPLES / "vector_add.cu")
    said = _said(app)
    async with app.run_test(size=SIZE) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        sid = screen.sid
        await Keys(real).press("q")
    assert app.return_code in (0, None)
    assert said and f"`kt-tui resume {sid}`" in said[0] and "waiting" in said[0]


async def test_q_after_the_end_names_the_export_command():
    app = new_app(EXAMPLES / "vector_add.cu")
    said = _said(app)
    async with app.run_test(size=SIZE) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        await Keys(real).press("s")
        await wait_for(real, lambda: screen.state == "finished")
        sid = screen.sid
        await Keys(real).press("q")
    assert said and f"`kt-tui export {sid} --out DIR`" in said[0]
