"""The session screen as a review tool (issue 13, items 3-7): rows per kernel version, keys from
the keymap, help and palette, settings per strategy, honest texts. Pilot, sim backend."""

import io
import types

from textual.widgets import TextArea

from kt_tui.engine.events import event_from
from kt_tui.front.commands import tui_app
from kt_tui.records import Result
from kt_tui.store import Store
from kt_tui.ui.editors import KernelEditScreen, TextEditScreen
from kt_tui.ui.keys import HelpScreen
from kt_tui.ui.plot import TuningPlot
from kt_tui.ui.settings_screen import SettingsScreen
from kt_tui.ui.widgets import ResultsTable

from ..conftest import EXAMPLES
from ..engine.test_explicit import replies
from ..llm_server import MODEL, ScriptedServer
from .test_strategies_ui import answer, app_for
from .test_ui import SIZE, Keys, gate_key, new_app, wait_for


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def test_rows_columns_plot_and_source_follow_the_kernel_version():
    with ScriptedServer(replies("matmul-one-prompt")) as server:
        app, settings = app_for(EXAMPLES / "matmul.cu", strategy="one-prompt", base_url=server.url, model=MODEL)
        async with app.run_test(size=SIZE) as real:
            pilot, screen = Keys(real), app.screen
            await answer(pilot, screen, "start", "s")
            await answer(pilot, screen, "kernel:one-prompt", "s")
            await wait_for(pilot, lambda: gate_key(screen) == "accept:one-prompt", timeout=60)
            table = screen.query_one(ResultsTable)
            vid = screen.gate.body["version"]
            assert "p:WORK_PER_THREAD" in [c.value for c in table.columns]  # the new kernel's own parameter
            labels = {str(table.get_cell(k, "version")).rstrip(" ◆") for k in table.rows}
            assert labels == {"original", "step one-prompt"}
            original = [r for r in table.rows_data.values() if r.version != vid]
            assert (
                all(
                    str(table.get_cell(k, "p:WORK_PER_THREAD")) == ""
                    for k, r in table.rows_data.items()
                    if r.version != vid
                )
                and original
            )
            cand = table.rows_data[table.candidate]
            assert cand.version == vid and cand.params == screen.gate.body["params"]
            assert "◆" in str(table.get_cell(table.candidate, "version"))
            plot = screen.query_one(TuningPlot)
            assert len(plot.versions) == 2 and set(plot.series) == {0, 1}
            assert "step one-prompt" in shown(screen, "#plot")
            progress = shown(screen, "#progress")
            run = screen.run_info
            assert f"step one-prompt tune: {run['done']} of {run['total']} configurations" in progress
            assert 0 < run["done"] <= len([r for r in table.rows_data.values() if r.version == vid])
            await pilot.press("s")
            await wait_for(pilot, lambda: screen.state == "finished", timeout=60)
            assert table.candidate is None
            assert "best kernel: step one-prompt" in shown(screen, "#source-label")
            assert "WORK_PER_THREAD" in screen.query_one("#source").code
            await pilot.press("v")
            assert "original kernel" in shown(screen, "#source-label")
            assert "WORK_PER_THREAD" not in screen.query_one("#source").code
            sid = screen.sid
            await pilot.press("q")
    app = tui_app(settings, Store(settings.db), resume=sid)  # stored: the same rows, labels and best kernel
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.state in ("finished", "error"), timeout=60)
        table = screen.query_one(ResultsTable)
        stored = len(Store(settings.db).results(sid))  # the rows past the screen's are added when scrolled to
        await wait_for(pilot, lambda: table.shown == stored)
        table.focus()
        await pilot.press("ctrl+end")
        assert len(table.rows) == stored
        assert "best kernel: step one-prompt" in shown(screen, "#source-label")
        await pilot.press("q")


async def test_a_remapped_enter_approves_and_the_texts_say_enter():
    app = new_app(EXAMPLES / "vector_add.cu")
    app.settings.keys = {"start": "enter", "stop": "ctrl+x"}
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:1")
        assert screen.focused is screen.query_one("#gate")  # the decision keys act from the gate panel
        gate = shown(screen, "#gate")
        assert "[enter] approve" in gate and "[ctrl+x] stop" in gate and "[s] approve" not in gate
        await pilot.press("enter")
        # the session's state and the Finished event can come in two batches: wait for the panel too
        await wait_for(pilot, lambda: screen.state == "finished" and "Press q" in shown(screen, "#gate"))
        assert "Press q to quit" in shown(screen, "#gate")
        await pilot.press("q")


async def test_help_palette_tab_keys_strategy_and_a_footer_that_fits():
    from textual.widgets import Footer, TabbedContent
    from textual.widgets._footer import FooterKey

    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:1")
        assert "strategy: sweep" in shown(screen, "#banner")
        # the footer is rebuilt once a frame after the gate takes the focus: wait for it, not for one pause
        await wait_for(pilot, lambda: "Approve" in {k.description for k in screen.query_one(Footer).query(FooterKey)})
        keys = screen.query_one(Footer).query(FooterKey)
        assert sum(k.outer_size.width for k in keys) <= 100
        described = {k.description for k in keys}
        assert {"Approve", "Edit", "Skip", "Stop", "Help"} <= described and "Retry" not in described
        await pilot.press("3")
        assert screen.query_one(TabbedContent).active == "tab-kernel"
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = str(app.screen.query_one("#help-text").render())
        assert "accept" in text and "Approve all" in text and "config.toml" in text
        await pilot.press("escape")
        titles = [c.title for c in app.get_system_commands(screen)]
        assert "Approve (s)" in titles and "Show the Plan tab" in titles and "Settings (f2)" in titles
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.state == "finished" and "Press q" in shown(screen, "#gate"))
        assert screen.check_action("switch_strategy", ()) is True  # go on from the best kernel
        assert "w to go on from the best kernel with another strategy" in shown(screen, "#gate")
        await pilot.press("q")


async def test_settings_follow_the_strategy_and_bad_values_keep_the_editor_open():
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=SIZE) as real:
        pilot, screen = Keys(real), app.screen
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:1")
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        settings = app.screen
        assert not settings.query("#threshold")
        settings.query_one("#max_configs").value = "-3"
        await pilot.press("ctrl+s")
        assert app.screen is settings
        assert "max_configs: must be at least 0, not -3" in shown(settings, "#settings-error")
        settings.query_one("#max_configs").value = "5"
        settings.query_one("#search").value = "brute_force"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.engine.options["max_configs"] == 5 and screen.engine.options["search"] == "brute_force"
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, TextEditScreen))
        editor = app.screen
        editor.query_one(TextArea).text = "search = 'nope'\n"
        await pilot.press("ctrl+s")
        assert app.screen is editor and "search: unknown 'nope'" in shown(editor, "#edit-error")
        assert editor.query_one(TextArea).text == "search = 'nope'\n"  # kept, to fix
        await pilot.press("escape")  # the text was changed: a yes discards it
        await pilot.press("y")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("q")


async def test_autonomous_settings_are_its_own_knobs():
    app = new_app(EXAMPLES / "vector_add.cu", strategy="autonomous")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.sid is not None and screen.strategy == "autonomous")
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        assert app.screen.query_one("#threshold") and not app.screen.query("#max_configs")
        await pilot.press("escape")
        await pilot.press("q")


async def test_texts_keep_their_brackets_toasts_are_short_and_totals_say_which():
    app = new_app(EXAMPLES / "vector_add.cu")
    posted = []  # every toast, also one that timed out before the gate came (a loaded machine)
    real_notify = app.notify

    def notify(message, **kw):
        posted.append((message, kw))
        return real_notify(message, **kw)

    app.notify = notify
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:1")
        manual = [(m, kw) for m, kw in posted if kw.get("title") == "Manual mode"]
        assert manual and "([w] switches)" in manual[0][0] and manual[0][1].get("markup") is False
        assert all(kw.get("timeout", 5) <= 6 for _, kw in posted)
        assert "before restrictions" in screen.gate.title and "SIMULATED" not in screen.gate.title
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.state == "finished")
        assert "restrictions)" in shown(screen, "#progress")
        await pilot.press("q")


async def test_the_kernel_editor_says_what_tab_does_and_shows_its_brackets():
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: gate_key(app.screen) == "sweep:1")
        editor = KernelEditScreen("__global__ void k() {}\n", {"block_size_x": [32, 64]}, [])
        app.push_screen(editor)
        await pilot.pause()
        texts = " ".join(str(s.render()) for s in editor.query("Static"))
        assert "tab indents" in texts and "tab moves" not in texts
        assert "name = [values]" in texts and 'restrict = ["..."]' in texts
        await pilot.press("escape")
        await pilot.press("q")


async def test_the_elapsed_time_stops_while_paused():
    app = new_app(EXAMPLES / "vector_add.cu")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:1")
        clock = types.SimpleNamespace(now=100.0)
        fake = types.SimpleNamespace(monotonic=lambda: clock.now)
        import kt_tui.ui.session_screen as module
        import kt_tui.ui.status as status

        real_time, module.time, status.time = module.time, fake, fake
        try:
            screen.run_info = {"run": "r", "version": None, "started": 100.0, "done": 0, "paused_s": 0.0}
            clock.now = 110.0
            screen._pause_clock(True)
            clock.now = 170.0
            screen._show_progress()
            assert "10 s elapsed" in shown(screen, "#progress")
            screen._pause_clock(False)
            clock.now = 175.0
            screen._show_progress()
            assert "15 s elapsed" in shown(screen, "#progress")
        finally:
            module.time = status.time = real_time
        await pilot.press("q")


def test_the_headless_progress_rows_have_a_header():
    from kt_tui.front.headless import progress_printer

    out = io.StringIO()
    emit = progress_printer(out)
    r = Result("32,1", {}, "ok", time_ms=0.5)
    emit(event_from("result", {"result": r, "best": True}))
    emit(event_from("result", {"result": r, "best": False}))
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["#", "configuration", "time", "status"] and lines[1].startswith("[1]")
    assert len(lines) == 3
