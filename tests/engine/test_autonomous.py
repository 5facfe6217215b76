"""The autonomous strategy against the scripted LLM server, replaying kernels measured on a real
GPU (sessions/caches, recorded with scripts/gpu_autonomous.sh). Every reply here is scripted."""

import json
import socket

from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer

SCRIPTED = ROOT / "tests" / "scripted"
CACHES = ROOT / "sessions" / "caches"


def replies(name: str) -> list[str]:
    return json.loads((SCRIPTED / f"{name}.json").read_text())["replies"]


def test_matmul_autonomous_session_headless(capsys, hermetic):
    with ScriptedServer(replies("matmul")) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "matmul.cu",
            "--strategy",
            "autonomous",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            CACHES,
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
        assert not server.script  # every scripted reply was asked for
    assert code == 0 and out["state"] == "finished"
    states = [(s["id"], s["state"]) for s in out["steps"]]
    assert states == [("1", "accepted"), ("2", "failed"), ("3", "accepted"), ("4", "skipped")]
    assert "wrong result at C[0]" in out["steps"][1]["reason"]
    assert "not a kernel change" in out["steps"][3]["reason"]
    assert out["best"]["kernel_version"] == out["steps"][2]["version"]
    assert out["speedup"] > 2
    store = Store(hermetic / "sessions.db")
    calls = store.llm_calls(out["session"])
    assert len(calls) == 9 and all(c["model"] == MODEL for c in calls)
    kernel3 = store.gate(out["session"], "kernel:3").body
    assert "renamed work_per_thread to WORK_PER_THREAD in the code" in kernel3["fixes"]
    assert kernel3["compile"]["ok"] is True and not kernel3["flags"]


def test_vector_add_autonomous_session_headless(capsys):
    with ScriptedServer(replies("vector_add")) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "autonomous",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            CACHES,
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
    assert code == 0
    assert [s["state"] for s in out["steps"]] == ["accepted", "accepted"]


def test_a_dead_endpoint_fails_clearly_and_keeps_the_session(capsys):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    code, out = run_cli(
        capsys,
        "run",
        EXAMPLES / "matmul.cu",
        "--strategy",
        "autonomous",
        "--auto",
        "--json",
        "--backend",
        "sim",
        "--base-url",
        f"http://127.0.0.1:{port}/v1",
        "--model",
        "m",
    )
    assert code == 1 and out["state"] == "failed"
    assert "unreachable" in out["error"] and str(port) in out["error"]
    code, rows = run_cli(capsys, "sessions", "--json")
    assert rows[0]["id"] == out["session"] and rows[0]["state"] == "failed"


def test_manual_mode_without_an_llm_says_how_to_connect(capsys):
    code, out = run_cli(
        capsys,
        "run",
        EXAMPLES / "vector_add.cu",
        "--strategy",
        "autonomous",
        "--auto",
        "--json",
        "--backend",
        "sim",
        "--llm",
        "none",
    )
    assert code == 1 and "--base-url" in out["error"]


def test_a_broken_reply_is_repaired_by_asking_again(capsys, hermetic):
    script = replies("vector_add")
    script.insert(0, "I think the plan should be: {steps: [first, second")  # not JSON
    with ScriptedServer(script) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "autonomous",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            CACHES,
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
        repair = server.requests[1]["messages"][-1]["content"]
    assert code == 0 and [s["state"] for s in out["steps"]] == ["accepted", "accepted"]
    assert "JSON" in repair


async def test_an_autonomous_session_in_the_ui_edited_skipped_quit_and_resumed(hermetic):
    from kt_tui.config import load_settings
    from kt_tui.front.commands import tui_app
    from kt_tui.front.session import read_kernel_file
    from kt_tui.ui.editors import KernelEditScreen, TextEditScreen
    from kt_tui.ui.gate_view import PlanView

    from ..ui.test_ui import SIZE, Keys, wait_for

    async def at(pilot, screen, key):
        await wait_for(
            pilot, lambda: screen.bridge.waiting and screen.gate is not None and screen.gate.key == key, timeout=60
        )

    with ScriptedServer(replies("matmul")) as server:
        flags = {
            "backend": "sim",
            "sim_cache": str(CACHES),
            "base_url": server.url,
            "model": MODEL,
            "strategy": "autonomous",
            "with_replanning": True,
        }
        settings = load_settings(flags)
        app = tui_app(settings, Store(settings.db), kernel_file=read_kernel_file(EXAMPLES / "matmul.cu"))
        async with app.run_test(size=SIZE) as real_pilot:
            pilot = Keys(real_pilot)
            screen = app.screen
            await at(pilot, screen, "start")
            await pilot.press("s")
            await at(pilot, screen, "plan")
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, TextEditScreen))
            area = app.screen.query_one("#edit-text")
            area.text = area.text.replace("Stage tiles of A and B in shared memory", "Tile A and B in shared memory")
            await pilot.press("ctrl+s")
            await at(pilot, screen, "step:1")
            assert screen.gate.title == "Step 1: Tile A and B in shared memory"
            for key in ("step:1", "kernel:1", "accept:1", "step:2", "kernel:2"):
                await at(pilot, screen, key)
                await pilot.press("s")
            await at(pilot, screen, "step:3")
            plan = {r["id"]: r for r in Store(settings.db).steps(screen.sid)}
            assert plan["1"]["state"] == "accepted"
            assert plan["2"]["state"] == "failed" and "wrong result at C[0]" in plan["2"]["reason"]
            assert screen.query_one(PlanView).row_count == 4
            await pilot.press("s")
            await at(pilot, screen, "kernel:3")
            assert "renamed work_per_thread to WORK_PER_THREAD in the code" in screen.gate.body["fixes"]
            assert screen.query_one("#tabs").active == "tab-kernel"
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.screen, KernelEditScreen))
            code = app.screen.query_one("#edit-code")
            code.text = code.text.replace(
                "            float b = sB[k][tx];\n",
                "            float b = sB[k][tx];\n"
                "            #pragma unroll  // added by hand: work_per_thread is a compile-time constant\n",
            )
            await pilot.press("ctrl+s")
            await at(pilot, screen, "kernel:3:2")  # the edit is checked and shown again before it runs
            assert screen.gate.body["compile"]["ok"] is True
            await pilot.press("s")
            await at(pilot, screen, "accept:3")
            sid = screen.sid
            await pilot.press("q")

        store = Store(settings.db)
        assert store.session(sid)["state"] == "waiting"
        assert store.gate(sid, "accept:3").state == "pending"
        rows_before = {(r.version, r.key) for r in store.results(sid)}
        edited = store.steps(sid)[2]["version"]
        assert "#pragma unroll  // added by hand" in store.version(sid, edited)["source"]

        app = tui_app(load_settings(flags), Store(settings.db), resume=sid)
        async with app.run_test(size=SIZE) as real_pilot:
            pilot = Keys(real_pilot)
            screen = app.screen
            await at(pilot, screen, "accept:3")
            await pilot.press("s")
            await at(pilot, screen, "step:4")
            assert "NOT a kernel change" in str(screen.query_one("#gate").render())
            await pilot.press("n")
            await wait_for(pilot, lambda: screen.state == "finished", timeout=60)
            await pilot.press("q")
        assert not server.script
    states = [s["state"] for s in store.steps(sid)]
    assert states == ["accepted", "failed", "accepted", "skipped"]
    assert rows_before <= {(r.version, r.key) for r in store.results(sid)}
    assert store.session(sid)["best_version"] == edited


def test_breakdown_splits_a_step_into_substeps(capsys):
    va = replies("vector_add")
    plan = json.dumps({"steps": [{"title": "Make the memory traffic cheaper", "description": "two ideas"}]})
    parts = json.dumps({"steps": [{"title": "Several elements per thread"}, {"title": "float4 loads"}]})
    script = [plan, va[1], parts, va[1], va[2], va[3], va[4], va[5]]
    with ScriptedServer(script) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "autonomous",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            CACHES,
            "--breakdown",
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
        assert not server.script
    assert code == 0
    assert [(s["id"], s["state"]) for s in out["steps"]] == [("1", "skipped"), ("1.1", "accepted"), ("1.2", "accepted")]
    assert "broken down into 2 steps" in out["steps"][0]["reason"]
