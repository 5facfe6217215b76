"""A call that fails while you watch says so in the LLM tab, as a resumed session's tab does from the
stored calls: before, the tab showed the call's header and nothing under it."""

from __future__ import annotations

from kt_tui.ui.gate_view import LlmLog

from ..conftest import EXAMPLES
from .test_ui import SIZE, Keys, gate_key, new_app, wait_for


def _lines(log: LlmLog) -> list[str]:
    return [strip.text for strip in log.lines]


async def test_a_failed_call_is_written_in_the_llm_tab():
    app = new_app(
        EXAMPLES / "vector_add.cu",
        strategy="autonomous",
        base_url="http://127.0.0.1:9/v1",  # nothing listens: refused at once
        model="m",
        llm_retries=1,
    )
    async with app.run_test(size=SIZE) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) is not None)
        await Keys(real).press("s")  # measure the original, then ask for a plan
        await wait_for(real, lambda: screen.gate is not None and screen.gate.kind == "llm_failed", timeout=60)
        screen.query_one("#tabs").active = "tab-llm"  # a hidden log keeps what it is given until it is drawn
        await real.pause()
        await real.pause()
        text = "\n".join(_lines(screen.query_one(LlmLog)))
        assert "--- plan (plan) ---" in text
        assert "failed:" in text and "unreachable" in text
        await Keys(real).press("q")
