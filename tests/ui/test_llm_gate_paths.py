"""Each gate that asks the LLM (plan, step verdict, kernel rewrite, config batch), driven in the app:
the call fails, and retry calls the model again, edit uses and stores the user's answer, skip goes
on without it; then the session is quit and resumed at the gate it reached, with no new call.
Every reply here is SCRIPTED (tests/llm_server.py), not a model's."""

import json

import pytest

from kt_tui.config import load_settings
from kt_tui.front.commands import tui_app as KtApp
from kt_tui.front.session import read_kernel_file
from kt_tui.store import Store
from kt_tui.ui.editors import TextEditScreen

from ..conftest import EXAMPLES, ROOT
from ..llm_server import MODEL, ScriptedServer
from .test_ui import SIZE, Keys, wait_for

CACHES = ROOT / "sessions" / "caches"
VA = json.loads((ROOT / "tests" / "scripted" / "vector_add.json").read_text())["replies"]
FAIL = {"status": 400, "message": "scripted failure"}  # not retried: the call's gate opens at once
BATCH = json.dumps(
    {
        "configs": [dict(block_size_x=16, block_size_y=16, tile_size_x=4, tile_size_y=4, tile_k=16)],
        "reasoning": "scripted",
    }
)
HAND_PLAN = json.dumps({"steps": [{"title": "Hand-written step", "description": "written in the editor"}]})
HAND_VERDICT = json.dumps({"valid": False, "reason": "judged by hand"})
HAND_KERNEL = VA[2].replace("// c = a + b", "// edited by hand: c = a + b", 1)
HAND_BATCH = BATCH.replace('"tile_k": 16', '"tile_k": 32').replace("scripted", "by hand")

# gate: (strategy, kernel, replies before the failing call, gates approved on the way, the call's key,
#        its good reply, the user's answer, where retry/edit lead, where skip leads, replies skip needs)
GATES = {
    "plan": ("autonomous", EXAMPLES / "vector_add.cu", [], ["start"], "plan", VA[0], HAND_PLAN, "plan", None, []),
    "verdict": (
        "autonomous",
        EXAMPLES / "vector_add.cu",
        [VA[0]],
        ["start", "plan"],
        "validate:1",
        VA[1],
        HAND_VERDICT,
        "step:1",
        "step:1",
        [],
    ),
    "kernel": (
        "autonomous",
        EXAMPLES / "vector_add.cu",
        [VA[0], VA[1]],
        ["start", "plan", "step:1"],
        "execute:1",
        VA[2],
        HAND_KERNEL,
        "kernel:1",
        "step:2",
        [VA[3]],
    ),
    "configs": (
        "config-search",
        ROOT / "benchmarks" / "spaces" / "matmul_tiled.cu",
        [],
        ["configs:start"],
        "configs:1",
        BATCH,
        HAND_BATCH,
        "batch:1",
        None,
        [],
    ),
}


def _flags(server, strategy):
    flags = {"backend": "sim", "base_url": server.url, "model": MODEL, "strategy": strategy}
    if strategy == "autonomous":
        flags["with_replanning"] = False
    return flags if strategy == "config-search" else {**flags, "sim_cache": str(CACHES)}


async def _at(screen, key):
    try:
        await wait_for(
            None, lambda: screen.bridge.waiting and screen.gate is not None and screen.gate.key == key, timeout=60
        )
    except AssertionError:
        raise AssertionError(
            f"waited for gate {key}; the screen is at {getattr(screen.gate, 'key', None)} ({screen.state})"
        ) from None


@pytest.mark.parametrize("path", ["retry", "edit", "skip"])
@pytest.mark.parametrize("gate", GATES)
async def test_an_llm_gate_retried_edited_or_skipped_then_resumed(hermetic, gate, path):
    strategy, kernel, before, approve, key, good, hand, after, after_skip, skip_more = GATES[gate]
    script = [*before, FAIL] + ([good] if path == "retry" else skip_more if path == "skip" else [])
    with ScriptedServer(script) as server:
        settings = load_settings(_flags(server, strategy))
        app = KtApp(settings, Store(settings.db), kernel_file=read_kernel_file(kernel))
        async with app.run_test(size=SIZE) as real:
            pilot, screen = Keys(real), app.screen
            for k in approve:
                await _at(screen, k)
                await pilot.press("s")
            await _at(screen, f"llm:{key}:1")
            assert screen.gate.kind == "llm_failed" and "scripted failure" in screen.gate.title
            asked = len(server.requests)
            if path == "retry":
                await pilot.press("t")
            elif path == "edit":
                await pilot.press("e")
                await wait_for(pilot, lambda: isinstance(app.screen, TextEditScreen))
                app.screen.query_one("#edit-text").text = hand
                await pilot.press("ctrl+s")
            else:
                await pilot.press("n")
            reached = after_skip if path == "skip" else after
            if reached is None:
                await wait_for(pilot, lambda: screen.state == "finished", timeout=60)
            else:
                await _at(screen, reached)
            sid = screen.sid
            shown = json.dumps(screen.gate.body) if reached else ""
            await pilot.press("q")
        store = Store(settings.db)
        stored = store.llm_result(sid, key)
        assert len(server.requests) == asked + {"retry": 1, "edit": 0, "skip": len(skip_more)}[path]
        if path == "retry":
            assert stored["by"] == "llm" and stored["text"] == good
        elif path == "edit":
            assert stored["by"] == "user" and stored["text"] == hand
            assert {
                "plan": "Hand-written step",
                "verdict": "judged by hand",
                "kernel": "edited by hand",
                "configs": '"tile_k": 32',
            }[gate] in shown
        else:
            assert stored["by"] == "user" and stored["value"] is None
            if gate == "verdict":
                assert json.loads(shown)["verdict"] is None
            if gate == "kernel":
                step = {s["id"]: s for s in store.steps(sid)}["1"]
                assert step["state"] == "skipped" and "no kernel" in step["reason"]
        if reached is None:
            assert store.session(sid)["state"] == "finished"
            return

        asked = len(server.requests)
        app = KtApp(load_settings(_flags(server, strategy)), Store(settings.db), resume=sid)
        async with app.run_test(size=SIZE) as real:
            pilot, screen = Keys(real), app.screen
            await _at(screen, reached)
            assert json.dumps(screen.gate.body) == shown
            await pilot.press("q")
        assert len(server.requests) == asked  # the stored answer was replayed, not asked again


async def test_a_call_that_failed_is_made_again_on_resume(hermetic):
    with ScriptedServer([FAIL, VA[0]]) as server:
        settings = load_settings(_flags(server, "autonomous"))
        app = KtApp(settings, Store(settings.db), kernel_file=read_kernel_file(EXAMPLES / "vector_add.cu"))
        async with app.run_test(size=SIZE) as real:
            pilot, screen = Keys(real), app.screen
            await _at(screen, "start")
            await pilot.press("s")
            await _at(screen, "llm:plan:1")
            sid = screen.sid
            await pilot.press("q")
        app = KtApp(load_settings(_flags(server, "autonomous")), Store(settings.db), resume=sid)
        async with app.run_test(size=SIZE) as real:
            pilot, screen = Keys(real), app.screen
            await _at(screen, "plan")
            await pilot.press("q")
        assert len(server.requests) == 2 and Store(settings.db).llm_result(sid, "plan")["by"] == "llm"
