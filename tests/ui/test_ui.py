"""The terminal UI, driven headless with Textual's Pilot, on recorded caches (sim backend)."""

import asyncio
import shutil

import pytest
from textual.pilot import WaitForScreenTimeout

from kt_tui.config import load_settings
from kt_tui.front.commands import tui_app
from kt_tui.front.session import read_kernel_file
from kt_tui.store import Store
from kt_tui.ui.session_screen import SessionScreen
from kt_tui.ui.setup_screens import KernelPickScreen, SpecEditScreen
from kt_tui.ui.widgets import ResultsTable

from ..conftest import EXAMPLES

SIZE = (150, 45)


async def wait_for(pilot, condition, timeout=30.0):
    """Poll with plain sleeps: Pilot.pause waits for the app to be idle, which a busy engine
    thread posting messages can delay without end."""
    waited = 0.0
    while not condition():
        assert waited < timeout, "timed out waiting for the UI"
        await asyncio.sleep(0.05)
        waited += 0.05


def gate_key(screen) -> str | None:
    """The gate the screen shows and waits on (the engine may wait a moment before the screen shows it)."""
    return screen.gate.key if screen.bridge.waiting and screen.gate is not None else None


class Keys:
    """Presses keys one at a time, like Pilot.press, and names the key when the app does not settle
    after it (Pilot raises WaitForScreenTimeout after 30 s; pytest-timeout ends any longer hang)."""

    def __init__(self, pilot):
        self.pilot = pilot

    async def press(self, *keys):
        for key in keys:
            try:
                await self.pilot.press(key)
            except WaitForScreenTimeout as e:
                raise AssertionError(f"the app did not settle after the key {key!r}: {e}") from None


def new_app(kernel, **flags):
    settings = load_settings({"backend": "sim", **flags})
    return tui_app(settings, Store(settings.db), kernel_file=read_kernel_file(kernel))


def resumed_app(sid):
    settings = load_settings({})
    return tui_app(settings, Store(settings.db), resume=sid)


def rows(app) -> list[str]:
    table = app.screen.query_one(ResultsTable)
    return [k.value for k in table.rows]


async def test_sweep_streams_stop_works_and_resume_continues(monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.3")
    app = new_app(EXAMPLES / "matmul.cu")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        assert "SIMULATED" in str(screen.query_one("#banner").render())
        await pilot.press("s")
        await wait_for(pilot, lambda: len(rows(app)) >= 4)
        await pilot.press("x")
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:2")
        shown = rows(app)
        assert 4 <= len(shown) < 17
        assert "Continue the sweep" in screen.gate.title
        sid = screen.sid
        await pilot.press("q")
    store = Store(load_settings({}).db)
    assert store.session(sid)["state"] == "waiting"
    assert sorted(r.key for r in store.results(sid)) == sorted(shown)

    app = resumed_app(sid)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) == "sweep:2")
        assert sorted(rows(app)) == sorted(shown)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.state == "finished")
        assert len(rows(app)) == 17
        table = screen.query_one(ResultsTable)
        best = min((r for r in table.rows_data.values() if r.time_ms), key=lambda r: r.time_ms)
        assert table.best_key == best.key
        await pilot.press("q")
    assert len(store.results(sid)) == 17


async def test_the_table_sorts_by_any_column():
    app = new_app(EXAMPLES / "reduction.cu")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.state == "finished")
        table = screen.query_one(ResultsTable)
        await pilot.press("o")  # first sort: time
        times = [table.rows_data[r.key.value].time_ms for r in table.ordered_rows]
        assert times == sorted(times)
        await pilot.press("r")
        times = [table.rows_data[r.key.value].time_ms for r in table.ordered_rows]
        assert times == sorted(times, reverse=True)
        table.sort_by("p:items_per_thread")
        values = [table.rows_data[r.key.value].params["items_per_thread"] for r in table.ordered_rows]
        assert values == sorted(values)
        await pilot.press("q")


async def test_a_kernel_without_spec_opens_a_draft_that_must_be_saved(tmp_path):
    cu = tmp_path / "scale.cu"
    cu.write_text(
        "__global__ void scale(float *out, const float *in, float alpha, int n) {\n"
        "  int i = blockIdx.x * block_size_x + threadIdx.x;\n  if (i < n) out[i] = alpha * in[i];\n}\n"
    )
    app = new_app(cu)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SpecEditScreen))
        assert not (tmp_path / "scale.cu.toml").exists()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        text = (tmp_path / "scale.cu.toml").read_text()
        assert 'kernel = "scale"' in text and "output = true" in text
        await pilot.press("q")


async def test_a_broken_spec_shows_the_field_and_is_fixed_in_place(tmp_path):
    for f in ("vector_add.cu", "vector_add.cu.toml"):
        shutil.copy(EXAMPLES / f, tmp_path / f)
    spec = tmp_path / "vector_add.cu.toml"
    good = spec.read_text()
    spec.write_text(
        good.replace(
            'type = "float32"\nsize = "n"\ninit = "random"\nseed = 1',
            'type = "float32"\nsize = "m"\ninit = "random"\nseed = 1',
        )
    )
    app = new_app(tmp_path / "vector_add.cu")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SpecEditScreen))
        error = str(app.screen.query_one("#spec-error").render())
        assert "args[1] (a).size" in error and "unknown name 'm'" in error
        app.screen.query_one("#spec-text").text = good
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert spec.read_text() == good
        await pilot.press("q")


async def test_several_kernels_ask_which_one(tmp_path):
    cu = tmp_path / "two.cu"
    cu.write_text("__global__ void first(float *x, int n) {}\n__global__ void second(int *y, int n) {}\n")
    app = new_app(cu)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, KernelPickScreen))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SpecEditScreen))
        assert app.screen.kernel.name == "second"
        await pilot.press("escape")


async def test_no_backend_is_a_recoverable_screen_not_a_crash(tmp_path):
    for f in ("vector_add.cu", "vector_add.cu.toml"):
        shutil.copy(EXAMPLES / f, tmp_path / f)
    app = new_app(tmp_path / "vector_add.cu")  # sim, but no recorded cache beside this copy
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.state == "error")
        assert "no recorded cache" in str(screen.query_one("#gate").render())
        await pilot.press("q")


async def test_a_kernel_that_does_not_compile_shows_nvcc_first(tmp_path):
    from kt_tui.gpu.compile import find_nvcc

    if not find_nvcc():
        pytest.skip("no nvcc here")
    shutil.copy(EXAMPLES / "vector_add.cu.toml", tmp_path / "vector_add.cu.toml")
    source = (EXAMPLES / "vector_add.cu").read_text().replace("c[i] = a[i] + b[i];", "c[i] = a[i] + oops;")
    (tmp_path / "vector_add.cu").write_text(source)
    app = new_app(tmp_path / "vector_add.cu")  # no recorded cache either: the compile error comes first
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.state == "error")
        shown = str(screen.query_one("#gate").render())
        assert "does not compile" in shown and 'identifier "oops" is undefined' in shown
        assert "no recorded cache" not in shown
        await pilot.press("q")


@pytest.mark.parametrize("theme", ["kt-dark", "kt-light"])
async def test_themes_load_from_the_themes_folder(theme):
    app = new_app(EXAMPLES / "vector_add.cu", theme=theme)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: gate_key(app.screen) is not None)
        assert app.theme == theme and not app.theme_problems
        await pilot.press("q")


def test_spec_draft_screen_snapshot(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "saxpy.cu").write_text(
        "__global__ void saxpy(float *y, const float *x, float a, int n) {\n"
        "  int i = blockIdx.x * block_size_x + threadIdx.x;\n  if (i < n) y[i] = a * x[i] + y[i];\n}\n"
    )
    app = new_app("saxpy.cu")

    async def until_shown(pilot):
        await wait_for(pilot, lambda: isinstance(app.screen, SpecEditScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 40), run_before=until_shown)


async def test_a_recorded_gpu_session_opens_anywhere(tmp_path):
    from pathlib import Path

    src = next((Path(__file__).resolve().parents[2] / "sessions").glob("examples-pycuda-*.db"))
    db = tmp_path / src.name
    db.write_bytes(src.read_bytes())
    store = Store(db)
    sid = next(s["id"] for s in store.sessions() if s["kernel_name"] == "matmul")
    settings = load_settings({"db": str(db)})
    app = tui_app(settings, Store(db), resume=sid)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: screen.state in ("finished", "failed", "error"))
        assert screen.state == "finished"
        assert len(rows(app)) == 17
        await pilot.press("q")
    assert store.session(sid)["state"] == "finished" and len(store.results(sid)) == 17


async def test_bindings_are_remapped_by_id():
    app = new_app(EXAMPLES / "vector_add.cu")
    app.settings.keys = {"start": "a"}
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        await pilot.press("s")
        await pilot.pause(0.2)
        assert screen.bridge.waiting  # "s" no longer starts
        await pilot.press("a")
        await wait_for(pilot, lambda: screen.state == "finished")
        await pilot.press("q")


async def test_the_kernel_editor_highlights_cuda():
    from textual.app import App

    from kt_tui.ui.editors import KernelEditScreen

    class Host(App):
        def on_mount(self):
            self.push_screen(
                KernelEditScreen("__global__ void k(float *x) { x[0] = 1.0f; }", {"block_size_x": [32]}, [])
            )

    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert (0, 10, "keyword") in app.screen.query_one("#edit-code")._highlights[0]  # kernel/syntax.py's colours
        await pilot.press("ctrl+s")


async def test_the_settings_screen_changes_the_strategy_knobs():
    from kt_tui.ui.settings_screen import SettingsScreen

    app = new_app(EXAMPLES / "vector_add.cu", strategy="autonomous")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, SettingsScreen))
        app.screen.query_one("#threshold").value = "0.1"
        app.screen.query_one("#with_replanning").value = False
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.engine.options["threshold"] == 0.1 and screen.engine.options["with_replanning"] is False
        await pilot.press("q")


async def test_the_table_and_plot_follow_events_without_reading_the_store(monkeypatch):
    import threading

    from kt_tui.ui.plot import TuningPlot

    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.05")
    reads = []
    real = Store.results

    def counting(self, *args, **kwargs):
        if threading.current_thread() is threading.main_thread():
            reads.append(args)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, "results", counting)
    app = new_app(EXAMPLES / "reduction.cu")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.state == "finished")
        table = screen.query_one(ResultsTable)
        plot = screen.query_one(TuningPlot)
        stored = real(app.screen.store, screen.sid)
        assert len(rows(app)) == len(stored) > 1
        assert sorted(t for t in plot.times if t) == sorted(r.time_ms for r in stored if r.status == "ok")
        assert table.best_key is not None
        await pilot.press("q")
    assert reads == []  # a new session: nothing stored to load, and the events carry the rest


async def test_a_large_session_shows_its_fastest_rows_and_keeps_the_rest():
    from textual.app import App

    class One(App):
        def compose(self):
            yield ResultsTable()

    def result(i, t, status="ok"):
        return {"key": str(i), "params": {"x": i}, "time_ms": t, "status": status, "verified": True}

    app = One()
    async with app.run_test() as pilot:
        table = app.query_one(ResultsTable)
        table.MAX_ROWS = 50
        table.setup(["x"])
        table.put_many([result(i, 1000.0 - i) for i in range(200)])  # stored, slowest first
        assert table.row_count == 50 and table.hidden == 150 and len(table.rows_data) == 200
        assert sorted(k.value for k in table.rows) == sorted(str(i) for i in range(150, 200))
        table.put(result(500, 0.5))  # a new fastest is shown at once
        table.put(result(501, 5000.0))  # slower than every shown row: kept, not shown
        table.put(result(502, None, "compile_error"))
        shown = {k.value for k in table.rows}
        assert "500" in shown and "501" not in shown and "502" not in shown
        for i in range(60):  # more fast ones: the table is trimmed back to the fastest 50
            table.put(result(600 + i, 0.6 + i / 1000))
            assert table.row_count < 2 * table.MAX_ROWS
        assert table.row_count <= 60 and len(table.rows_data) == 263
        fastest = sorted(table.rows_data.values(), key=lambda r: r.time_ms or 1e9)[: table.row_count]
        assert {k.value for k in table.rows} == {r.key for r in fastest}
        table.set_baseline(2.0)  # re-bases the shown rows only
        table.sort_by("time")
        times = [table.rows_data[r.key.value].time_ms for r in table.ordered_rows]
        assert times == sorted(times) and times[0] == 0.5
        await pilot.pause()
