"""The app during an LLM call: x cancels it and leaves its gate; q leaves the app with the call cancelled;
an answer written by hand that does not parse reopens the editor with the text and its problems."""

import time

from kt_tui.config import load_settings
from kt_tui.front.commands import tui_app
from kt_tui.front.session import read_kernel_file
from kt_tui.store import Store
from kt_tui.ui.editors import TextEditScreen

from ..conftest import EXAMPLES, ROOT
from ..llm_server import MODEL, ScriptedServer
from .test_ui import SIZE, Keys, wait_for

CACHES = ROOT / "sessions" / "caches"


def _app(server):
    flags = {
        "backend": "sim",
        "sim_cache": str(CACHES),
        "base_url": server.url,
        "model": MODEL,
        "strategy": "autonomous",
    }
    settings = load_settings(flags)
    return settings, tui_app(settings, Store(settings.db), kernel_file=read_kernel_file(EXAMPLES / "vector_add.cu"))


async def _in_call(pilot, screen, server):
    await wait_for(
        pilot, lambda: screen.bridge.waiting and screen.gate is not None and screen.gate.key == "start", timeout=60
    )
    await pilot.press("s")
    await wait_for(pilot, lambda: len(server.requests) == 1 and not screen.bridge.waiting, timeout=60)


async def test_x_cancels_the_call_and_a_bad_hand_written_answer_reopens_the_editor(hermetic):
    with ScriptedServer([{"trickle": 0.2}]) as server:
        settings, app = _app(server)
        async with app.run_test(size=SIZE) as real_pilot:
            pilot = Keys(real_pilot)
            screen = app.screen
            await _in_call(pilot, screen, server)
            await pilot.press("x")
            await wait_for(pilot, lambda: screen.bridge.waiting and screen.gate.kind == "llm_failed", timeout=30)
            assert "cancelled" in screen.gate.title
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, TextEditScreen))
            area = app.screen.query_one("#edit-text")
            assert "an example of the shape" in area.text and '"steps"' in area.text
            area.text = "step one: unroll"
            await pilot.press("ctrl+s")
            await wait_for(
                pilot,
                lambda: (
                    isinstance(app.screen, TextEditScreen)
                    and screen.gate is not None
                    and screen.gate.key == "llm:plan:2"
                ),
            )
            assert app.screen.query_one("#edit-text").text == "step one: unroll"
            assert "Problems with this text" in app.screen.help_text
            assert len(server.requests) == 1  # nothing was asked of the LLM again
            await pilot.press("escape")
            sid = screen.sid
            await pilot.press("q")
    calls = Store(settings.db).llm_calls(sid)
    assert [c["state"] for c in calls] == ["failed"] and "cancelled" in calls[0]["error"]


async def test_q_during_a_streaming_call_leaves_with_the_call_cancelled(hermetic):
    with ScriptedServer([{"trickle": 0.2}]) as server:
        settings, app = _app(server)
        async with app.run_test(size=SIZE) as real_pilot:
            pilot = Keys(real_pilot)
            screen = app.screen
            await _in_call(pilot, screen, server)
            sid = screen.sid
            await pilot.press("q")
        store = Store(settings.db)
        for _ in range(200):  # the engine thread records the cancelled attempt as it leaves
            if store.llm_calls(sid)[0]["state"] != "running":
                break
            time.sleep(0.05)
        assert store.llm_calls(sid)[0]["state"] == "failed"
        assert store.session(sid)["state"] == "waiting"
