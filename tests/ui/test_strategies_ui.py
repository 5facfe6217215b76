"""The explicit, one-prompt and manual sessions and the strategy switch in the UI, driven with Pilot
in sim mode. The LLM replies are scripted (tests/scripted/build.py), not a model's output."""

from kt_tui.config import load_settings
from kt_tui.front.commands import tui_app
from kt_tui.front.session import read_kernel_file
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..engine.test_explicit import CACHES, SCRIPTED, STEPS, replies
from ..llm_server import MODEL, ScriptedServer
from .test_ui import SIZE, Keys, gate_key, wait_for


def app_for(kernel, **flags):
    settings = load_settings({"backend": "sim", "sim_cache": str(CACHES), **flags})
    return tui_app(settings, Store(settings.db), kernel_file=read_kernel_file(kernel)), settings


async def answer(pilot, screen, key, *presses):
    await wait_for(pilot, lambda: gate_key(screen) == key, timeout=60)
    await pilot.press(*presses)


def gate_text(screen) -> str:
    return str(screen.query_one("#gate").render())


async def test_explicit_session_with_a_dependency_skip_and_an_overruled_verdict():
    from kt_tui.ui.gate_view import PlanView

    with ScriptedServer(replies("vector_add-explicit-overrule")) as server:
        app, settings = app_for(
            EXAMPLES / "vector_add.cu", strategy="explicit", steps=str(STEPS), base_url=server.url, model=MODEL
        )
        async with app.run_test(size=SIZE) as real:
            pilot, screen = Keys(real), app.screen
            await answer(pilot, screen, "start", "s")
            await wait_for(pilot, lambda: gate_key(screen) == "step:items", timeout=60)
            assert "LLM verdict: worth doing" in gate_text(screen)
            assert screen.query_one(PlanView).row_count == 4
            for key in ("step:items", "kernel:items", "accept:items"):
                await answer(pilot, screen, key, "s")
            await wait_for(pilot, lambda: gate_key(screen) == "step:float4", timeout=60)
            shown = gate_text(screen)
            assert "NOT worth it - scripted: not worth it, the loads are already coalesced" in shown
            assert "approves it anyway" in shown
            await pilot.press("s")  # the user overrules the LLM
            for key in ("kernel:float4", "accept:float4"):
                await answer(pilot, screen, key, "s")
            await answer(pilot, screen, "step:block_xy", "n")
            await wait_for(pilot, lambda: screen.state == "finished", timeout=60)
            sid = screen.sid
            await pilot.press("q")
        assert not server.script
    store = Store(settings.db)
    steps = {s["id"]: s for s in store.steps(sid)}
    assert steps["items"]["state"] == "accepted" and steps["float4"]["state"] == "accepted"
    assert store.gate(sid, "step:float4").decision["choice"] == "approve"
    assert (steps["block_xy"]["state"], steps["block_xy"]["reason"]) == ("skipped", "skipped by the user")
    assert (steps["tile_xy"]["state"], steps["tile_xy"]["reason"]) == (
        "skipped",
        "depends on block_xy, which was skipped",
    )
    assert store.session(sid)["best_version"] == steps["float4"]["version"]


async def test_one_prompt_session_in_the_ui():
    with ScriptedServer(replies("matmul-one-prompt")) as server:
        app, settings = app_for(EXAMPLES / "matmul.cu", strategy="one-prompt", base_url=server.url, model=MODEL)
        async with app.run_test(size=SIZE) as real:
            pilot, screen = Keys(real), app.screen
            await answer(pilot, screen, "start", "s")
            await wait_for(pilot, lambda: gate_key(screen) == "kernel:one-prompt", timeout=60)
            assert screen.query_one("#tabs").active == "tab-kernel"
            assert "WORK_PER_THREAD" in str(screen.gate.body["tune_params"])
            await pilot.press("s")
            await answer(pilot, screen, "accept:one-prompt", "s")
            await wait_for(pilot, lambda: screen.state == "finished", timeout=60)
            sid = screen.sid
            await pilot.press("q")
    store = Store(settings.db)
    assert [(s["id"], s["state"]) for s in store.steps(sid)] == [("one-prompt", "accepted")]
    assert store.session(sid)["best_ms"] < store.session(sid)["baseline_ms"] / 2


async def test_manual_session_the_user_writes_the_plan_and_the_kernel():
    from kt_tui.ui.editors import KernelEditScreen, TextEditScreen

    app, settings = app_for(EXAMPLES / "matmul.cu", strategy="autonomous", llm="none")
    async with app.run_test(size=SIZE) as real:
        pilot, screen = Keys(real), app.screen
        await answer(pilot, screen, "start", "s")
        await wait_for(pilot, lambda: gate_key(screen) == "plan", timeout=60)
        assert "Manual mode" in gate_text(screen) and "--base-url" in gate_text(screen)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, TextEditScreen))
        app.screen.query_one("#edit-text").text = "1. Tile A and B in shared memory\n"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: gate_key(screen) == "step:1", timeout=60)
        assert "no LLM" in gate_text(screen)
        await answer(pilot, screen, "step:1", "s")
        await wait_for(pilot, lambda: gate_key(screen) == "kernel:1", timeout=60)
        assert screen.gate.body["diff"] == "" and "Manual mode" in gate_text(screen)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, KernelEditScreen))
        app.screen.query_one("#edit-code").text = (SCRIPTED / "matmul" / "tiled.cu").read_text()
        app.screen.query_one(
            "#edit-params"
        ).text = 'block_size_x = [8, 16, 32]\nblock_size_y = [8, 16, 32]\nrestrict = ["block_size_x == block_size_y"]\n'
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: gate_key(screen) == "kernel:1:2", timeout=60)
        assert "__shared__" in screen.gate.body["diff"]
        await pilot.press("s")
        await answer(pilot, screen, "accept:1", "s")
        await answer(pilot, screen, "plan:1", "s")  # an empty plan: nothing more to do
        await wait_for(pilot, lambda: screen.state == "finished", timeout=60)
        sid = screen.sid
        await pilot.press("q")
    store = Store(settings.db)
    step = store.steps(sid)[0]
    assert (step["title"], step["state"]) == ("Tile A and B in shared memory", "accepted")
    assert store.session(sid)["best_version"] == step["version"]
    assert len(store.results(sid, step["version"])) == 3 and store.llm_calls(sid) == []


async def test_switching_strategy_between_steps_goes_on_from_the_best_kernel():
    from textual.widgets import OptionList

    from kt_tui.ui.strategy_picker import StrategyPicker

    script = replies("vector_add-explicit")[:4]  # the fourth answers the one-prompt call after the switch
    with ScriptedServer(script) as server:
        app, settings = app_for(
            EXAMPLES / "vector_add.cu", strategy="explicit", steps=str(STEPS), base_url=server.url, model=MODEL
        )
        async with app.run_test(size=SIZE) as real:
            pilot, screen = Keys(real), app.screen
            for key in ("start", "step:items", "kernel:items", "accept:items"):
                await answer(pilot, screen, key, "s")
            await answer(pilot, screen, "step:float4", "w")
            await wait_for(pilot, lambda: isinstance(app.screen, StrategyPicker))
            options = app.screen.query_one(OptionList)
            options.highlighted = next(
                i for i in range(options.option_count) if options.get_option_at_index(i).id == "one-prompt"
            )
            await pilot.press("enter")
            await answer(pilot, screen, "kernel:one-prompt", "s")
            await answer(pilot, screen, "accept:one-prompt", "s")
            await wait_for(pilot, lambda: screen.state == "finished", timeout=60)
            sid = screen.sid
            await pilot.press("q")
        assert not server.script
    store = Store(settings.db)
    assert store.session(sid)["strategy"] == "one-prompt"
    steps = {s["id"]: s for s in store.steps(sid)}
    assert steps["items"]["state"] == "accepted"
    for name in ("float4", "block_xy", "tile_xy"):
        assert steps[name]["state"] == "skipped" and "switched to one-prompt" in steps[name]["reason"]
    new = store.version(sid, steps["one-prompt"]["version"])
    assert steps["one-prompt"]["state"] == "accepted" and new["parent"] == steps["items"]["version"]
    assert store.gate(sid, "step:float4").state == "pending"
