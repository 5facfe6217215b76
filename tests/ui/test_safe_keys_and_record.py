"""Issue 23: a review screen people trust with their hands. Safe keys, visible state, the truth in
the record. Pilot, sim backend; each test fails on the main before the issue."""

from textual.widgets import Input

from kt_tui.store import Store
from kt_tui.ui.confirm import AskScreen
from kt_tui.ui.export_screen import ExportScreen
from kt_tui.ui.keys import HelpScreen
from kt_tui.ui.setup_screens import SpecEditScreen
from kt_tui.ui.widgets import GatePanel, ResultsTable

from ..conftest import EXAMPLES
from .test_ui import SIZE, Keys, gate_key, new_app, wait_for


async def test_j_j_k_in_the_table_moves_and_never_skips(monkeypatch):
    monkeypatch.setenv("KT_TUI_UNDO_S", "30")
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=SIZE) as real:
        pilot, screen = Keys(real), app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        screen.query_one(ResultsTable).focus()
        await pilot.press("j", "j", "k")  # lazygit's, k9s's and htop's scrolling
        assert gate_key(screen) == "sweep:1" and not isinstance(app.screen, AskScreen)
        screen.query_one("#tabs").query_one("Tabs").focus()  # neither the gate nor a list: n asks first
        await pilot.press("n")
        assert isinstance(app.screen, AskScreen)
        await pilot.press("n")
        assert app.screen is screen and gate_key(screen) == "sweep:1" and screen.held is None
        screen.query_one(GatePanel).focus()  # from the gate panel n acts, held for undo
        await pilot.press("n")
        assert screen.held is not None and gate_key(screen) == "sweep:1"
        assert "undoes" in str(screen.query_one(GatePanel).render())
        await pilot.press("u")
        assert screen.held is None and gate_key(screen) == "sweep:1"
        assert Store(app.settings.db).gate(screen.sid, "sweep:1").state == "pending"
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("q")


async def test_approve_all_is_stored_as_autopilot():
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=SIZE) as real:
        pilot, screen = Keys(real), app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        await pilot.press("A", "y")
        await wait_for(real, lambda: screen.state == "finished", timeout=60)
        sid = screen.sid
        await pilot.press("q")
    gates = Store(app.settings.db).gates(sid)
    assert gates and {g.decision["by"] for g in gates} == {"autopilot"}


async def test_one_escape_leaves_the_spec_editor(tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_text("__global__ void k(float *x, int n) { x[0] = 1.0f; }\n")
    app = new_app(cu)
    async with app.run_test(size=SIZE) as real:
        await wait_for(real, lambda: isinstance(app.screen, SpecEditScreen))
        assert app.focused.id == "spec-text"
        await real.press("escape")
        await wait_for(real, lambda: app.return_code is not None, timeout=5)
    assert app.return_code == 1


async def test_export_moves_focus_off_the_path_when_written(tmp_path):
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=SIZE) as real:
        pilot, screen = Keys(real), app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        await pilot.press("A", "y")
        await wait_for(real, lambda: screen.state == "finished", timeout=60)
        await pilot.press("X")
        await wait_for(real, lambda: isinstance(app.screen, ExportScreen))
        dialog = app.screen
        dialog.query_one("#export-dir", Input).value = str(tmp_path / "out")
        await pilot.press("enter")
        await wait_for(real, lambda: dialog.written is not None, timeout=60)
        await wait_for(real, lambda: not isinstance(app.focused, Input), timeout=5)
        await pilot.press("l", "s")  # typed after "Wrote": goes nowhere near the path
        assert dialog.query_one("#export-dir", Input).value == str(tmp_path / "out")
        await pilot.press("escape")
        await pilot.press("q")


async def test_status_bar_shows_pause_sort_filter_and_a_budget(monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.2")
    app = new_app(EXAMPLES / "matmul.cu", max_configs=6)
    async with app.run_test(size=SIZE) as real:
        pilot, screen = Keys(real), app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        await pilot.press("s")
        await wait_for(real, lambda: screen.state == "running" and screen.run_info.get("kind") == "tune", timeout=60)
        await pilot.press("p")
        await wait_for(real, lambda: screen.paused)
        status = str(screen.query_one("#status").render())
        assert "PAUSED" in status and "budget 6" in status
        assert "Paused" in str(screen.query_one(GatePanel).render())
        await pilot.press("p")
        await wait_for(real, lambda: screen.state == "finished", timeout=60)
        run = screen.run_info
        stored = Store(app.settings.db).count_results(screen.sid, run["version"], run=run["run"])
        assert stored == 6 and run["done"] == run["known"] + stored  # the budget, counted from the store
        before = f" ({run['known']} measured before)" if run["known"] else ""
        assert f"{run['done']} of {run['total']} configurations{before}, budget 6" in str(
            screen.query_one("#status").render()
        )
        await pilot.press("o")  # sort: the column says so, the status bar too
        table = screen.query_one(ResultsTable)
        assert str(table.columns[table.sort_index].label).endswith("▲")
        assert "sort time ms ▲" in str(screen.query_one("#status").render())
        await pilot.press("slash", *"status=x")
        assert app.focused.id == "filter"
        await pilot.press(
            "backspace",
            "backspace",
            "backspace",
            "backspace",
            "backspace",
            "backspace",
            "backspace",
            "backspace",
            *"block_size_x=32",
        )
        shown = [table.rows_data[k.value] for k in table.rows]
        assert shown and all(r.params["block_size_x"] == 32 for r in shown) and len(shown) < len(table.rows_data)
        assert "filter “block_size_x=32”" in str(screen.query_one("#status").render())
        await pilot.press("escape")
        assert len(table.rows) == len(table.rows_data) and app.focused is table
        await pilot.press("q")


def test_resume_keeps_what_the_session_was_started_with(tmp_path):
    import json

    from kt_tui.config import load_settings
    from kt_tui.front.session import session_options, stored_llm

    store = Store(tmp_path / "s.db")
    started = load_settings(
        {
            "max_configs": 300,
            "search": "random_sample",
            "seeds": False,
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "api_key": "sk-secret",
        }
    )
    stored = {**started.public(), "strategy_options": session_options(started, "sweep")}  # as new_session stores
    sid = store.create_session(kernel_name="k", strategy="sweep", settings=json.dumps(stored))
    now = load_settings({})
    assert "using the llm" in stored_llm(store, now, sid).lower()
    options = session_options(now, "sweep", store, sid)
    assert (options["max_configs"], options["search"], options["seeds"], now.model) == (
        300,
        "random_sample",
        False,
        "m",
    )
    assert now.api_key is None and "sk-secret" not in store.session(sid)["settings"]
    given = load_settings({"max_configs": 5})  # a flag given at resume wins
    options = session_options(given, "sweep", store, sid)
    assert options["max_configs"] == 5 and options["search"] == "random_sample"
    older = store.create_session(kernel_name="k", strategy="sweep", settings=json.dumps({"max_configs": 300}))
    assert session_options(load_settings({}), "sweep", store, older)["max_configs"] == 300  # flat, as stored before
    bad = store.create_session(
        kernel_name="k", strategy="sweep", settings=json.dumps({"max_configs": -1, "search": "__import__"})
    )
    options = session_options(load_settings({}), "sweep", store, bad)  # refused as a flag would be: defaults stay
    assert (options["max_configs"], options["search"]) == (0, "kt")


async def test_help_footer_and_palette_follow_the_gate(tmp_path):
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    from .test_snapshots import GATES, open_gate, session_app

    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        open_gate(screen, GATES["accept"])
        await pilot.pause()
        await pilot.pause()
        described = {k.description for k in screen.query_one(Footer).query(FooterKey)}
        assert {"Accept", "Reject"} <= described and "Skip" not in described
        screen.action_help()
        await pilot.pause()
        text = str(app.screen.query_one("#help-text").render())
        assert text.startswith("This gate: Accept step 1?")
        assert "reject: drop the new kernel" in text and "edit:" not in text.split("How a session goes")[0]
        await pilot.press("escape")
        from dataclasses import replace

        open_gate(screen, replace(GATES["plan"], choices=("approve", "edit", "stop")))  # as autonomous asks it
        await pilot.pause()
        screen.action_help()
        await pilot.pause()
        text = str(app.screen.query_one("#help-text").render()).split("How a session goes")[0]
        assert "skip:" not in text and "approve:" in text and "stop:" in text  # the plan gate has no skip
        await pilot.press("escape")
        from kt_tui.ui.keys import palette_commands

        commands = list(app.get_system_commands(screen)) + list(palette_commands(screen, {}))  # as KtApp lists them
        titles = [c.title for c in commands]
        assert "Approve (s)" in titles and "Skip (k)" not in titles and "Pause/resume (p)" not in titles
        assert not [t for t in titles if t.startswith("Quit (")] and [t for t in titles if t == "Quit"]
        assert all(c.help.lower().split(":")[-1].strip() != c.title.split(" (")[0].lower() for c in commands)


async def test_the_theme_picked_and_the_pane_are_kept(tmp_path):
    from kt_tui.ui import prefs

    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=(100, 30)) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        assert not screen.query_one("#left").display  # 100 columns: the source pane folds away
        await real.press("c")
        assert screen.query_one("#left").display
        app.theme = "kt-light"  # as the palette's theme picker sets it
        await real.pause()
        await real.press("q")
    assert prefs.load() == {"theme": "kt-light", "source_pane": True}
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=(100, 30)) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        assert app.theme == "kt-light" and screen.query_one("#left").display
        await real.press("q")


def test_an_edit_is_stored_and_reported_with_what_it_changed(tmp_path):
    from kt_tui.config import load_settings
    from kt_tui.engine.events import Decision
    from kt_tui.engine.strategies.explicit import explicit
    from kt_tui.export.bundle import load_bundle
    from kt_tui.export.report import report_markdown

    from ..engine.test_autonomous import CACHES, SCRIPTED
    from ..engine.test_explicit import _engine

    steps = tmp_path / "steps.toml"
    steps.write_text(
        '[[step]]\nid = "tile"\ntitle = "Tile in shared memory"\nprompt = "{kernel_string}"\n'
        "tune_params = { block_size_x = [8, 16, 32] }\n"
    )
    tiled = (SCRIPTED / "matmul" / "tiled.cu").read_text()

    def decide(gate):
        if gate.key == "kernel:tile":
            return Decision(
                "edit",
                {
                    "code": tiled,
                    "tune_params": {"block_size_x": [8, 16, 32], "block_size_y": [8, 16, 32]},
                    "restrictions": ["block_size_x == block_size_y"],
                },
            )
        return Decision("approve", by="policy")

    settings = load_settings(
        {"backend": "sim", "sim_cache": str(CACHES), "llm": "none", "steps": str(steps), "strategy": "explicit"}
    )
    engine, gpu = _engine(settings, EXAMPLES / "matmul.cu", decide)
    try:
        engine.run(explicit)
    finally:
        gpu.close()
    store = engine.store
    d = store.gate(engine.sid, "kernel:tile").decision
    assert d["choice"] == "edit" and d["by"] == "user"
    assert "__shared__" not in d["before"]["code"] and "__shared__" in d["value"]["code"]
    md = report_markdown(load_bundle(store, engine.sid), store)
    assert "What was edited:" in md and "+++ code (edited)" in md and "--- code (proposed)" in md
    assert any(line.startswith("+") and "__shared__" in line for line in md.splitlines())
    assert "+block_size_y = [8, 16, 32]" in md and '+"block_size_x == block_size_y"' in md
    assert "by policy (headless)" in md and "by you" in md


async def test_the_llm_tab_is_rebuilt_from_the_store_on_resume(capsys, hermetic):
    from kt_tui.config import load_settings
    from kt_tui.front.commands import tui_app

    from ..engine.test_autonomous import CACHES, replies
    from ..helpers import run_cli
    from ..llm_server import MODEL, ScriptedServer

    script = ["not json at all, sorry", *replies("vector_add")]  # a failed parse first: a repair call
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
    assert code == 0
    store = Store(hermetic / "sessions.db")
    calls = store.llm_calls(out["session"])
    assert len(calls) >= 3
    app = tui_app(load_settings({"llm": "none"}), store, resume=out["session"])
    async with app.run_test(size=SIZE) as pilot:
        log = app.screen.query_one("#llm-log")
        app.screen.action_tab("llm")  # a log that never showed has not laid out its lines
        await wait_for(pilot, lambda: len(log.lines) > len(calls))
        await pilot.pause()
        text = "\n".join(line.text for line in log.lines)
        for c in calls:
            assert f"--- {c['key']} ({c['purpose']})" in text
        assert "not json at all, sorry" in text and "tokens in" in text and "asked: " in text
        await pilot.press("q")


async def test_the_fatal_screen_exits_2_and_says_why(tmp_path):
    import shutil

    for f in ("vector_add.cu", "vector_add.cu.toml"):
        shutil.copy(EXAMPLES / f, tmp_path / f)
    app = new_app(tmp_path / "vector_add.cu")  # sim, but no recorded cache beside this copy
    said = []
    exit_app = app.exit
    app.exit = lambda *a, **k: said.append(str(k.get("message") or "")) or exit_app(*a, **k)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.state == "error")
        await pilot.pause()
        assert "choosing a backend" not in str(screen.query_one("#banner").render())
        assert "ERROR" in str(screen.query_one("#status").render())
        await pilot.press("q")
    assert app.return_code == 2
    assert said and said[0].startswith("kt-tui: ") and "no recorded cache" in said[0]


def test_an_edited_plan_or_step_keeps_a_clean_title():
    from kt_tui.engine.plan import plan_from_text, plan_text
    from kt_tui.engine.strategies.autonomous import _split_step

    edited = "1. **Step 1: Tile the loop**\n   in shared memory\n2.Unroll it\n# Use float4\n"
    assert [t for t, _ in plan_from_text(edited)] == ["Tile the loop", "Unroll it", "Use float4"]
    assert _split_step("Step 3: Tile in registers\nfour outputs a thread") == (
        "Tile in registers",
        "four outputs a thread",
    )
    steps = [("Tile the loop", "a\nb"), ("Unroll", "c")]
    assert plan_from_text(plan_text(steps)) == steps  # an unedited plan comes back as it was


def test_a_batch_counts_against_its_own_length_not_the_space(capsys, hermetic):
    from ..engine.test_config_search import KERNEL, SCRIPT
    from ..helpers import run_cli
    from ..llm_server import MODEL, ScriptedServer

    with ScriptedServer(list(SCRIPT)) as server:
        code, out = run_cli(
            capsys,
            "run",
            KERNEL,
            "--strategy",
            "config-search",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--base-url",
            server.url,
            "--model",
            MODEL,
            "--rounds",
            "2",
            "--batch-size",
            "6",
        )
    assert code == 0, out
    store = Store(hermetic / "sessions.db")
    batches = [r for r in store.runs(out["session"]) if r.kind != "tune" and r.kind != "reference"]
    assert batches
    for r in batches:  # "4 of 4", never "4/16": the space's count does not replace a batch's length
        assert r.total == store.count_results(out["session"], r.version, run=r.id) <= 6
