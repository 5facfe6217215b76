"""A resumed session loads the rows its table shows and one number per result for the plot,
never every stored result decoded (issue 14)."""

import threading

from kt_tui.config import load_settings
from kt_tui.records import replace
from kt_tui.store import Store
from kt_tui.ui.plot import TuningPlot
from kt_tui.ui.widgets import ResultsTable

from ..conftest import EXAMPLES
from ..ui.test_ui import SIZE, gate_key, new_app, resumed_app, rows, wait_for


async def test_a_resumed_session_loads_only_the_rows_it_shows(monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.3")
    app = new_app(EXAMPLES / "matmul.cu")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        await pilot.press("s")
        await wait_for(pilot, lambda: len(rows(app)) >= 3)
        await pilot.press("x")
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:2")
        sid, vid = screen.sid, screen.engine.original
        await pilot.press("q")
    store = Store(load_settings({}).db)
    measured = store.results(sid)
    slow = [
        {"key": f"slow{i}", "params": {"x": i}, "status": "ok", "time_ms": 1000.0 + i, "verified": True}
        for i in range(300)
    ]
    store.add_results(sid, vid, "old", slow + [{"key": "bad", "params": {}, "status": "compile_error"}])
    monkeypatch.setattr(ResultsTable, "MAX_ROWS", 20)
    reads = []
    real = Store.results

    def counting(self, *args, **kwargs):
        if threading.current_thread() is threading.main_thread():
            reads.append(args)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, "results", counting)
    app = resumed_app(sid)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:2")
        table = screen.query_one(ResultsTable)
        assert table.row_count == 20 and len(table.rows_data) == 20  # the rest stays in the store
        assert table.total == len(measured) + 301 and table.hidden == len(measured) + 281
        assert {r.key for r in measured} <= set(rows(app))  # the fastest are the ones measured
        plot = screen.query_one(TuningPlot)
        await wait_for(pilot, lambda: plot.reading is None)  # read on a thread: the gate may come first
        assert len(plot.times) == len(measured) + 301 and sum(t is None for t in plot.times) >= 1
        await pilot.press("q")
    assert reads == []


def test_the_plot_converts_only_the_points_added_since_its_last_redraw(monkeypatch):
    import numpy as np

    from kt_tui.ui.plot import _Column

    col = _Column(float)
    times = [1.0, None, 3.0]
    assert np.array_equal(col.extend(times), [1.0, np.nan, 3.0], equal_nan=True)
    converted = []
    real = np.asarray
    monkeypatch.setattr(np, "asarray", lambda v, *a, **k: converted.append(len(v)) or real(v, *a, **k))
    times += [4.0] * 2000
    assert len(col.extend(times)) == 2003 and converted == [2000]  # the new points only
    col.set(1, 2.0)
    assert col.extend(times)[1] == 2.0 and converted == [2000]


def test_the_plot_colours_each_cell_as_a_dot_by_dot_drawing_does():
    import random

    import numpy as np

    from kt_tui.ui.plot import Canvas, render_plot

    def styles_of(text):
        out = [""] * len(text.plain)
        for span in text.spans:
            for i in range(span.start, span.end):
                out[i] = span.style
        return out

    palette = {"point0": "cyan", "point1": "magenta", "best": "yellow"}
    rng = random.Random(5)
    for _ in range(20):
        n, w, h = rng.randint(1, 2000), rng.randint(15, 100), rng.randint(2, 8)
        times = [None if rng.random() < 0.1 else rng.uniform(0.01, 50) for _ in range(n)]
        series = [0 if i < n // 2 else 1 for i in range(n)]
        got = render_plot(times, w, h, palette, series)
        ok = [t for t in times if t]
        if not ok:
            continue
        lo, hi = np.log(min(ok)), np.log(max(ok))
        span, cw = (hi - lo) or 1.0, w - 10
        canvas = Canvas(cw, h)
        xs = [round(i * (cw * 2 - 1) / max(n - 1, 1)) for i in range(n)]
        best = None
        for i, t in enumerate(times):  # every point, then the best-so-far line
            if t:
                canvas.dot(xs[i], round((np.log(t) - lo) / span * (h * 4 - 1)), f"point{series[i]}")
        for i, t in enumerate(times):
            best = t if t and (best is None or t < best) else best
            if best is not None:
                canvas.dot(xs[i], round((np.log(best) - lo) / span * (h * 4 - 1)), "best")
        want = canvas.text(palette)
        got_styles, want_styles = styles_of(got), styles_of(want)
        for r in range(h):  # each line of the plot: a 10-character label, then the cells
            start = r * (w + 1)
            assert got.plain[start + 10 : start + w] == want.plain[r * (cw + 1) : r * (cw + 1) + cw]
            assert got_styles[start + 10 : start + w] == want_styles[r * (cw + 1) : r * (cw + 1) + cw]


async def test_results_streaming_in_refresh_no_key_bindings(monkeypatch):
    from kt_tui.ui.session_screen import SessionScreen

    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.05")
    calls = []
    real = SessionScreen.refresh_bindings
    monkeypatch.setattr(SessionScreen, "refresh_bindings", lambda self: calls.append(1) or real(self))
    app = new_app(EXAMPLES / "reduction.cu")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.state == "finished")
        from kt_tui.engine.events import event_from as Event
        from kt_tui.ui.bridge import Flush

        await pilot.pause()
        screen.on_flush(Flush())  # what the run left queued (late on a loaded machine) is shown first
        table = screen.query_one(ResultsTable)
        r = replace(next(iter(table.rows_data.values())), key="extra", time_ms=99.0)
        for kind in ("begin", "result"):
            screen.bridge.on_event(
                Event(
                    kind,
                    {"run": None, "version": None, "result": r, "best": False, "key": "extra", "params": r.params},
                )
            )
        before = len(calls)
        screen.on_flush(Flush())
        assert "extra" in table.rows_data and len(calls) == before  # a batch of results alone
        screen.bridge.on_event(Event("note", {"text": "hello"}))
        screen.on_flush(Flush())
        assert len(calls) == before + 1
        await pilot.press("q")


async def test_a_new_baseline_rebases_the_speedup_of_the_rows_shown():
    from textual.app import App

    class One(App):
        def compose(self):
            yield ResultsTable()

    app = One()
    async with app.run_test() as pilot:
        table = app.query_one(ResultsTable)
        table.setup(["x"])
        table.put_many(
            [
                {"key": str(i), "params": {"x": i}, "time_ms": 0.5 * (i + 1), "status": "ok", "verified": True}
                for i in range(3)
            ]
            + [{"key": "9", "params": {"x": 9}, "status": "crash"}]
        )
        assert str(table.get_cell("1", "speedup")) == "-"
        table.set_baseline(2.0)
        assert [str(table.get_cell(k, "speedup")) for k in ("0", "1", "2", "9")] == ["4.00x", "2.00x", "1.33x", "-"]
        await pilot.pause()


async def test_the_plan_follows_step_events_without_reading_the_store(monkeypatch):
    import threading

    from kt_tui.engine.events import event_from
    from kt_tui.ui.bridge import Flush
    from kt_tui.ui.gate_view import PlanView

    reads = []
    real = Store.steps

    def counting(self, *args):
        if threading.current_thread() is threading.main_thread():
            reads.append(args)
        return real(self, *args)

    app = new_app(EXAMPLES / "reduction.cu")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        monkeypatch.setattr(Store, "steps", counting)
        screen.bridge.on_event(event_from("step", {"id": "tile", "title": "Tile in shared memory", "state": "planned"}))
        screen.bridge.on_event(event_from("step", {"id": "tile", "state": "running"}))
        screen.on_flush(Flush())
        plan = screen.query_one(PlanView)
        assert plan.row_count == 1 and str(plan.get_row("tile")[2]) == "running"
        assert str(plan.get_row("tile")[1]) == "Tile in shared memory"
        await pilot.press("q")
    assert reads == []


def _stored_session(n: int):
    """A vector_add session holding n measured results, stored without running anything."""
    from kt_tui.engine.backend import BackendChoice
    from kt_tui.front.session import load_kernel_spec, new_session, read_kernel_file
    from kt_tui.kernel.spec import version_hash

    settings = load_settings({"backend": "sim"})
    store = Store(settings.db)
    kf = read_kernel_file(EXAMPLES / "vector_add.cu")
    _, spec = load_kernel_spec(kf, None, None)
    sid = new_session(store, settings, kf, spec, BackendChoice("sim", "NVIDIA H200"))
    vid = version_hash(kf.source, spec)
    store.add_results(
        sid,
        vid,
        "old",
        [
            {
                "key": str(1000 + i),
                "params": {"block_size_x": 1000 + i},
                "time_ms": 1.0 + i,
                "status": "ok",
                "verified": True,
            }
            for i in range(n)
        ],
    )
    store.update_session(sid, best_ms=1.0, best_key="1000", best_version=vid)
    return store, sid, vid


def _no_engine(monkeypatch):
    """The screen resumes without an engine behind it: what it shows comes from the store alone."""
    from kt_tui.errors import UserError
    from kt_tui.front import commands

    def open_stored(settings, store, sid):
        def prepare(gpu):
            raise UserError("no engine in this test")

        return prepare

    monkeypatch.setattr(commands, "open_stored", open_stored)


async def test_a_resumed_session_shows_its_top_rows_at_once_and_reads_the_rest_off_the_ui_thread(monkeypatch):
    from kt_tui.engine.events import event_from
    from kt_tui.ui.bridge import Flush
    from kt_tui.ui.widgets import ProgressLine

    store, sid, vid = _stored_session(1200)
    _no_engine(monkeypatch)
    hold, reads = threading.Event(), []
    real_fastest, real_pages = Store.fastest, Store.plot_pages

    def fastest(self, sid, n, upto=None):
        reads.append(("fastest", n, threading.current_thread() is threading.main_thread()))
        return real_fastest(self, sid, n, upto)

    def plot_pages(self, sid, upto=None, size=2000, **kw):
        reads.append(("plot", None, threading.current_thread() is threading.main_thread()))
        hold.wait(30)  # the plot's points stay on their way until the test lets them through
        yield from real_pages(self, sid, upto, size, **kw)

    monkeypatch.setattr(Store, "fastest", fastest)
    monkeypatch.setattr(Store, "plot_pages", plot_pages)
    app = resumed_app(sid)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        table, plot = screen.query_one(ResultsTable), screen.query_one(TuningPlot)
        await wait_for(pilot, lambda: table.shown == 1000)
        assert table.row_count == SIZE[1]  # the rows a screen can show; the rest as the user scrolls to them
        assert reads[0] == ("fastest", SIZE[1], True) and ("fastest", 1000, False) in reads
        assert [r for r in reads if r[2]] == [reads[0]]  # the UI thread read only the top of the table
        assert table.total == 1200 and table.best_key == "1000" and str(table.get_cell("1000", "best")) == "★"
        progress = str(screen.query_one(ProgressLine).render())
        assert "1200 measured" in progress and "the table shows the 1000 fastest" in progress
        assert plot.reading == 1200 and "loading the plot of 1,200 stored results" in str(plot.render())
        r = {"key": "fresh", "params": {"block_size_x": 7}, "time_ms": 0.5, "status": "ok", "verified": True}
        screen.bridge.on_event(event_from("result", {"run": None, "version": vid, "result": r, "best": True}))
        screen.on_flush(Flush())  # a result while the plot loads: in the table at once, on the plot after
        assert "fresh" in table.rows_data and plot.times == []
        hold.set()
        await wait_for(pilot, lambda: plot.reading is None)
        assert len(plot.times) == 1201 and plot.times[0] == 1.0 and plot.times[-1] == 0.5
        assert "loading" not in str(plot.render())
        await pilot.press("q")


async def test_the_rest_of_a_resumed_table_shows_as_the_cursor_or_the_view_nears_it(monkeypatch):
    store, sid, vid = _stored_session(1200)
    _no_engine(monkeypatch)
    app = resumed_app(sid)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        table = screen.query_one(ResultsTable)
        await wait_for(pilot, lambda: table.shown == 1000)
        assert table.row_count == SIZE[1]
        table.move_cursor(row=SIZE[1] - 5)
        assert table.row_count == SIZE[1] + ResultsTable.FILL_ROWS
        await pilot.pause()  # the table measures its new rows
        table.scroll_y = table.max_scroll_y
        assert table.row_count == SIZE[1] + 2 * ResultsTable.FILL_ROWS
        assert [r.key.value for r in table.ordered_rows][:3] == ["1000", "1001", "1002"]  # fastest first, as stored
        table.focus()  # the gate panel has the focus at first: the decision keys act from there
        await pilot.press("ctrl+end")  # the last row: every row that shows
        assert table.row_count == 1000 and table.cursor_row == 999 and table.hidden == 200
        scanned = []
        monkeypatch.setattr(Store, "results", lambda *a, **k: scanned.append(a) or [])
        table.mark_candidate(vid, {"block_size_x": 2150})  # a gate asks about a stored row that is not loaded
        assert table.candidate == "2150" and "2150" in [k.value for k in table.rows] and scanned == []
        assert table.rows_data["2150"].time_ms == 1151.0 and table.hidden == 199
        await pilot.press("q")
    app = resumed_app(sid)
    async with app.run_test(size=SIZE) as pilot:
        table = app.screen.query_one(ResultsTable)
        await wait_for(pilot, lambda: table.shown == 1000)
        await pilot.press("r")  # sorting (slowest first) rebuilds the table: all its rows
        assert table.row_count == 1000 and table.ordered_rows[0].key.value == "1999"
        await pilot.press("q")


async def test_the_footer_is_rebuilt_once_for_many_binding_changes_in_a_frame(monkeypatch):
    from textual.widgets import Footer

    store, sid, vid = _stored_session(3)
    _no_engine(monkeypatch)
    app = resumed_app(sid)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.state == "error")  # no engine: it says so and waits
        await pilot.pause()
        rebuilt = []
        real = Footer.recompose

        async def recompose(self):
            rebuilt.append(1)
            await real(self)

        monkeypatch.setattr(Footer, "recompose", recompose)
        for _ in range(5):  # a gate, the events around it, a change of focus
            screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert len(rebuilt) == 1
        await pilot.press("q")
