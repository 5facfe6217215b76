"""A [keys] remap that puts two actions of one screen on one key is a warning naming both: before, the
gate showed `[s] approve ... [s] skip` and `s` only approved, with nothing said."""

from __future__ import annotations

from kt_tui.ui.app import key_clashes

from ..conftest import EXAMPLES
from .test_ui import SIZE, Keys, gate_key, new_app, wait_for


def test_two_actions_on_one_key_are_found_and_the_defaults_are_not():
    assert key_clashes({}) == []
    clashes = key_clashes({"start": "s", "skip": "s"})
    assert any("'s'" in c and "skip" in c and "start" in c for c in clashes)
    assert any("quit" in c for c in key_clashes({"skip": "q"}))  # onto a key another action has by default
    assert key_clashes({"skip": "k"}) == []  # k moves in the tables, but no action of the screen has it


async def test_the_app_warns_of_a_clash_when_it_starts():
    app = new_app(EXAMPLES / "vector_add.cu", keys={"start": "s", "skip": "s"})
    said: list[str] = []
    app.notify = lambda message, **k: said.append(str(message))  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as real:
        await wait_for(real, lambda: gate_key(app.screen) == "sweep:1")
        await Keys(real).press("q")
    assert any("[keys]" in s and "'s'" in s and "skip" in s and "start" in s for s in said), said
