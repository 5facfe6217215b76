"""Issue 37 items 4-6: keys that only move where they move, decisions held or confirmed, a table in
the order it says, and a screen that keeps what matters at 80x24. Pilot; the sim backend or a
screen with no engine (tests/ui/test_snapshots.py); each test fails on 954e135."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console
from textual.widgets import Footer
from textual.widgets._footer import FooterKey
from textual.widgets._toast import Toast

from kt_tui.engine.backend import BackendChoice
from kt_tui.engine.events import event_from
from kt_tui.records import Result
from kt_tui.store import Store
from kt_tui.ui.bridge import Flush
from kt_tui.ui.confirm import AskScreen
from kt_tui.ui.gate_view import PlanView
from kt_tui.ui.widgets import GatePanel, ResultsTable

from ..conftest import EXAMPLES
from .test_snapshots import GATES, P0, open_gate, session_app, stored_sessions
from .test_ui import Keys, gate_key, new_app, wait_for


def order(table: ResultsTable) -> list[str]:
    return [r.key.value for r in table.ordered_rows]


async def still_at(pilot, gate):
    """The screen with no engine (test_snapshots.session_app) showing gate, laid out."""
    await pilot.pause()
    screen = pilot.app.screen
    open_gate(screen, gate)
    await pilot.pause()
    return screen


def panel_lines(screen) -> list[str]:
    """The gate panel's text as drawn at its width."""
    panel = screen.query_one(GatePanel)
    console = Console(width=panel.content_region.width, record=True)
    console.print(panel.render())
    return console.export_text().splitlines()


# -- item 4: keys and focus --------------------------------------------------------------------------


async def test_movement_keys_on_the_gate_panel_only_move_and_tab_goes_to_the_table(monkeypatch):
    monkeypatch.setenv("KT_TUI_UNDO_S", "30")
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=(80, 24)) as real:
        pilot, screen = Keys(real), app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        assert isinstance(app.focused, GatePanel)  # the default focus
        await pilot.press("j", "j", "k", "G", "g", "down", "up", "pagedown", "end", "home")
        assert gate_key(screen) == "sweep:1" and screen.held is None and app.screen is screen
        await pilot.press("tab")  # the first Tab: the table the README names
        assert isinstance(app.focused, ResultsTable)
        await pilot.press("q")


async def test_a_tab_the_app_opens_itself_takes_the_focus_that_was_in_the_hidden_one(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        screen.query_one(ResultsTable).focus()
        await pilot.pause()
        open_gate(screen, GATES["plan"])  # the Plan tab shows: the results table hides
        await pilot.pause()
        assert isinstance(app.focused, PlanView)
        await pilot.press("j")  # moves there, decides nothing
        assert screen.held is None and screen.gate is GATES["plan"]


async def test_approve_all_asks_can_be_undone_and_turned_off(monkeypatch):
    monkeypatch.setenv("KT_TUI_UNDO_S", "30")
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=(100, 30)) as real:
        pilot, screen = Keys(real), app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        await pilot.press("A")
        assert isinstance(app.screen, AskScreen)  # asks first
        await pilot.press("n")
        assert not screen.autopilot and gate_key(screen) == "sweep:1"
        await pilot.press("A", "y")
        assert screen.autopilot and screen.held is not None  # its first decision waits out the undo
        assert "AUTOPILOT on" in str(screen.query_one("#status").render())
        await pilot.press("u")
        assert not screen.autopilot and screen.held is None and gate_key(screen) == "sweep:1"
        assert Store(app.settings.db).gate(screen.sid, "sweep:1").state == "pending"
        screen.autopilot = True  # on (its decision sent): A turns it off, no question asked

        def footer() -> set[str]:
            return {k.description for k in screen.query_one(Footer).query(FooterKey)}

        await wait_for(real, lambda: bool({"Autopilot off", "Autopilot"} & footer()))  # the footer redraws later
        await pilot.press("A")
        assert not screen.autopilot and app.screen is screen
        screen.state = "stopped"  # a stopped session: nothing for the autopilot to decide
        assert screen.check_action("approve_all", ()) is False
        await pilot.press("q")


async def test_x_during_a_tune_is_held_and_undone_with_u(monkeypatch):
    monkeypatch.setenv("KT_TUI_UNDO_S", "30")
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.3")
    app = new_app(EXAMPLES / "matmul.cu")
    async with app.run_test(size=(100, 30)) as real:
        pilot, screen = Keys(real), app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        await pilot.press("s")
        await wait_for(real, lambda: screen.state == "running" and screen.run_info.get("kind") == "tune", timeout=60)
        screen.query_one(GatePanel).focus()
        await pilot.press("x")
        assert screen.held is not None and not screen.stopping
        assert "UNDO?" in str(screen.query_one("#status").render())
        await pilot.press("u")
        assert screen.held is None and not screen.stopping and screen.state == "running"
        await pilot.press("q")


async def test_help_lists_the_keys_of_the_view_in_front_of_you(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        screen.query_one(ResultsTable).focus()
        await pilot.pause()
        screen.action_help()
        await pilot.pause()
        text = str(app.screen.query_one("#help-text").render())
        assert "In the results table" in text and "First row" in text
        assert "memcheck" not in text and "Undo" not in text  # no kernel gate here, nothing held
        await pilot.press("escape")


# -- item 5: the live table is in the order it says ---------------------------------------------------


def _result(key: str, ms: float) -> Result:
    params = {**P0, "block_size_x": int(key)}
    return Result(key=",".join(str(v) for v in params.values()), params=params, time_ms=ms, status="ok", verified=True)


async def test_live_rows_are_fastest_first_and_the_cursor_stays_on_its_row(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        table = screen.query_one(ResultsTable)
        for key, ms in (("40", 0.2), ("41", 0.01), ("42", 0.15)):
            screen.bridge.on_event(event_from("result", {"result": _result(key, ms), "version": "v0"}))
        screen.on_flush(Flush())
        times = [table.rows_data[k].time_ms for k in order(table)]
        measured = [t for t in times if t is not None]
        assert times == measured + [None] * (len(times) - len(measured)) and measured == sorted(measured)
        table.move_cursor(row=order(table).index("16,16,1,1"))
        screen.bridge.on_event(event_from("result", {"result": _result("43", 0.001), "version": "v0"}))
        screen.on_flush(Flush())
        assert order(table)[0].startswith("43,") and order(table)[table.cursor_row] == "16,16,1,1"
        assert "fastest first" in str(screen.query_one("#status").render())


async def test_the_accept_gates_candidate_is_first(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        table = screen.query_one(ResultsTable)
        for i in range(20):
            table.put(_result(str(100 + i), 0.001 * (i + 1)), "v0")
        slow = replace(GATES["accept"], params={**P0, "WORK_PER_THREAD": 2})  # 0.061 ms: far down the table
        open_gate(screen, slow)
        await pilot.pause()
        first = table.rows_data[order(table)[0]]
        assert first.version == "v1" and first.params["WORK_PER_THREAD"] == 2 and table.cursor_row == 0


# -- item 6: 80x24 ----------------------------------------------------------------------------------


async def test_at_80x24_the_keys_gpu_parameters_and_verdicts_stay_on_screen(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        for kind in GATES:
            open_gate(screen, GATES[kind])
            await pilot.pause()
            await pilot.pause()
            keys_at = next(i for i, line in enumerate(panel_lines(screen)) if "[x] stop" in line or "[t]" in line)
            shown = screen.query_one("#gate-scroll").content_region.height
            assert keys_at < shown, f"{kind}: the gate's keys are below the fold"
            banner = str(screen.query_one("#banner").render())[:80]
            assert "SIMULATED" in banner and "NVIDIA H200" in banner, banner
        table = screen.query_one(ResultsTable)
        right = table.region.x + table.content_region.width
        x = table.region.x
        for key, column in table.columns.items():
            x += column.get_render_width(table)
            if key.value.startswith("p:") or key.value in ("verified", "note"):
                assert x <= right + 1 or key.value == "note", f"{key.value} is cut off"
        assert x - table.columns[next(reversed(table.columns))].get_render_width(table) < right  # the note starts
        footer = screen.query_one(Footer).query(FooterKey)
        assert all(k.description for k in footer), [k.key_display for k in footer if not k.description]


async def test_every_footer_key_is_named_at_80_columns_with_memcheck(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await still_at(pilot, GATES["kernel"])
        screen.choice = BackendChoice("pycuda", "NVIDIA H100")  # a real GPU: memcheck applies
        screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        footer = screen.query_one(Footer).query(FooterKey)
        assert footer and all(k.description for k in footer), [k.key_display for k in footer if not k.description]


async def test_a_failed_compiles_reason_is_readable_in_the_row_detail(tmp_path):
    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await still_at(pilot, GATES["sweep"])
        table = screen.query_one(ResultsTable)
        reason = (
            'kernel.cu(12): error: identifier "TILE" is undefined in this configuration because tile_size_x '
            "= 8 leaves the shared array larger than 48 KB of static shared memory per block"
        )
        bad = Result(key="9", params={**P0, "block_size_x": 9}, status="compile_error", error=reason, time_ms=None)
        table.put(bad, "v0")
        table.focus()
        table.move_cursor(row=order(table).index(table.row_key("v0", bad.key)))
        await pilot.pause()
        await pilot.pause()
        detail = str(screen.query_one("#row-detail").render())
        assert "48 KB of static shared memory per block" in detail and "block_size_x=9" in detail
        assert "verified -" in detail and "compile_error" in detail  # the verdict is the verdict's cell


async def test_start_up_notices_never_cover_the_gate_panel():
    app = new_app(EXAMPLES / "vector_add.cu")  # sim, no LLM: the backend's and the manual mode's notices
    async with app.run_test(size=(80, 24), notifications=True) as real:
        screen = app.screen
        await wait_for(real, lambda: gate_key(screen) == "sweep:1")
        await wait_for(real, lambda: len(screen.query(Toast)) >= 1)
        await real.pause()
        await real.pause()
        panel = screen.query_one("#gate-scroll").region
        for toast in screen.query(Toast):
            assert not toast.region.overlaps(panel), "a notice covers the gate panel"
        await real.press("q")


async def test_the_kernel_editor_shows_the_code_at_80x24():
    from textual.app import App
    from textual.widgets import TextArea

    from kt_tui.ui.editors import KernelEditScreen

    code = "".join(f"// line {i}\n" for i in range(40))
    app = App(css_path=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(KernelEditScreen(code, {"block_size_x": [16, 32]}, []))
        await pilot.pause()
        area = app.screen.query_one("#edit-code", TextArea)
        assert area.content_region.height >= 10, area.content_region


async def test_the_sessions_browser_keeps_gpu_date_and_simulated_and_its_place(tmp_path, monkeypatch):
    from kt_tui.config import load_settings
    from kt_tui.ui.sessions_screen import SessionsScreen

    from .test_snapshots import SnapApp

    monkeypatch.chdir(tmp_path)
    store = Store("sessions.db")
    stored_sessions(store)
    store.create_session(id="s0003", kernel_path="examples/reduction.cu", kernel_name="r", state="finished")
    for width in (80, 100):
        app = SnapApp(load_settings({}), store, lambda app: SessionsScreen(store))
        async with app.run_test(size=(width, 24)) as pilot:
            await pilot.pause()
            table = app.screen.query_one("#sessions")
            x = table.region.x
            ends = {}
            for column in table.columns.values():
                x += column.get_render_width(table)
                ends[str(column.label)] = x
            for name in ("GPU", "date", "sim"):
                assert ends[name] <= table.region.right, f"{name} is cut off at {width} columns"
            footer = {k.key_display for k in app.screen.query_one(Footer).query(FooterKey)}
            assert "enter" in footer or "⏎" in footer, footer
    app = SnapApp(load_settings({}), store, lambda app: SessionsScreen(store))
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#sessions")
        table.move_cursor(row=1)
        deleted = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        await pilot.press("d", "y")
        await pilot.pause()
        assert deleted not in [r.key.value for r in table.ordered_rows] and table.cursor_row == 1
