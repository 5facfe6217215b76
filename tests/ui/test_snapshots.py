"""Snapshots (pytest-textual-snapshot) of the session screen at each kind of gate, the sessions
browser and the export screen, in both shipped themes. Hermetic: no engine runs; the gates,
results, ids, dates and paths shown are fixed here, the terminal size too.
Update them with `pytest tests/ui/test_snapshots.py --snapshot-update` and look at each one."""

from concurrent.futures import Future
from pathlib import Path

import pytest
from textual.app import App

import kt_tui.ui
from kt_tui.config import load_settings
from kt_tui.engine import gates as g
from kt_tui.engine.backend import BackendChoice
from kt_tui.engine.gates import Gate
from kt_tui.front.session import read_kernel_file
from kt_tui.kernel.source import pick_kernel
from kt_tui.kernel.spec import load_spec
from kt_tui.store import Store
from kt_tui.ui.app import KtApp
from kt_tui.ui.bridge import GateOpened
from kt_tui.ui.gate_view import PlanView
from kt_tui.ui.plot import TuningPlot
from kt_tui.ui.session_screen import SessionScreen
from kt_tui.ui.widgets import ResultsTable

from ..conftest import EXAMPLES

SIZE = (100, 40)
THEMES = ("kt-dark", "kt-light")
FOUR = ("approve", "edit", "skip", "stop")
P0 = {"block_size_x": 16, "block_size_y": 16, "tile_size_x": 1, "tile_size_y": 1}
DIFF = (
    "--- original\n+++ step 1\n@@ -3,6 +3,8 @@\n-    float sum = 0.0f;\n+    float sum[WORK_PER_THREAD] = {0.0f};\n"
    "+    #pragma unroll\n+    for (int w = 0; w < WORK_PER_THREAD; w++) {\n"
)

GATES = {
    "sweep": g.SweepGate(
        key="sweep:1",
        title="Tune matmul (17 configurations, 24 before restrictions)?",
        version="v0",
        total=17,
        total_before=24,
        sizes="17 configurations, 24 before restrictions",
        search="kt",
        max_configs=0,
        time_limit_s=0,
        seeds=True,
        choices=FOUR,
    ),
    "plan": g.PlanGate(
        key="plan",
        title="Run this plan?",
        text="1. Tile the inner loop\n   Each thread computes WORK_PER_THREAD outputs.\n"
        "2. Stage tiles in shared memory\n   Load A and B tiles once per block.\n",
        choices=FOUR,
    ),
    "step": g.StepGate(
        key="step:1",
        title="Step 1: Tile the inner loop",
        description="Each thread computes WORK_PER_THREAD outputs of a row.",
        tune_params={"WORK_PER_THREAD": [1, 2, 4]},
        verdict={"valid": True, "reason": "fewer loads of A per output"},
        choices=FOUR,
    ),
    "kernel": g.KernelGate(
        key="kernel:1",
        title="Use this kernel for step 1?",
        code="__global__ void matmul() {}\n",
        tune_params={"WORK_PER_THREAD": [1, 2, 4]},
        compile={"ok": True, "arch": "sm_90"},
        diff=DIFF,
        explanation="Each thread keeps WORK_PER_THREAD partial sums in registers.",
        choices=("approve", "edit", "skip", "retry", "stop"),
    ),
    "accept": g.AcceptGate(
        key="accept:1",
        title="Accept step 1? best 0.0500 ms vs 0.0800 ms now (1.60x)",
        step="1",
        version="v1",
        new_ms=0.05,
        current_ms=0.08,
        best="original",
        baseline_ms=0.08,
        params={**P0, "WORK_PER_THREAD": 4},
        threshold=0.02,
        recommend=True,
        verified="right (recorded on the GPU)",
    ),
    "configs": g.ConfigsGate(
        key="configs:1",
        title="Benchmark these 2 configurations?",
        reasoning="Wider tiles reuse more of B.",
        configs=[{**P0, "tile_size_x": 2}, {**P0, "tile_size_x": 4}],
        invalid=[{"config": {"block_size_x": 3}, "why": "3 is not a value of block_size_x"}],
        choices=FOUR,
    ),
    "space": g.SpaceGate(
        key="space:1",
        title="Change the search space?",
        reason="The best configurations sit at the edge: tile_size_x = 4.",
        before={"tile_size_x": [1, 2, 4]},
        after={"tile_size_x": [1, 2, 4, 8]},
        size_before=48,
        size_after=64,
        choices=FOUR,
    ),
    "llm_failed": g.LlmFailedGate(
        key="llm:plan", title="The LLM call for the plan failed", text="HTTP 500 from the server: internal error"
    ),
    "llm_reply": g.LlmReplyGate(
        key="llm:plan:2",
        title="The LLM's reply for plan is not valid: steps: field required",
        call="plan",
        template="plan",
        text='{"step": []}',
        problems=["steps: field required"],
    ),
}


def result(params: dict, ms: float | None, status: str = "ok") -> dict:
    return {
        "key": ",".join(str(v) for v in params.values()),
        "params": params,
        "time_ms": ms,
        "status": status,
        "verified": True if status == "ok" else None,
        "error": None,
        "source": "recorded",
    }


class StillSession(SessionScreen):
    """The session screen with no engine behind it: what it shows is set by the test."""

    def engine_thread(self) -> None:
        pass


class SnapApp(App):
    """KtApp's looks (stylesheet, themes) around one screen."""

    CSS_PATH = str(Path(kt_tui.ui.__file__).parent / "app.tcss")
    TITLE = KtApp.TITLE

    def __init__(self, settings, store, screen_factory) -> None:
        super().__init__()
        self.settings, self.store, self.screen_factory = settings, store, screen_factory

    def on_mount(self) -> None:
        from kt_tui.ui.theme import load_themes

        for theme in load_themes()[0]:
            self.register_theme(theme)
        self.theme = self.settings.theme
        self.push_screen(self.screen_factory(self))


def session_app(theme: str, tmp_path) -> SnapApp:
    settings = load_settings({"backend": "sim", "theme": theme, "strategy": "autonomous"})
    store = Store(tmp_path / "sessions.db")
    kf = read_kernel_file(EXAMPLES / "matmul.cu")
    spec = load_spec(EXAMPLES / "matmul.cu.toml", pick_kernel(kf.kernels, None, "matmul.cu"))
    return SnapApp(
        settings, store, lambda app: StillSession(settings, store, kf.source, spec, None, kernel_label="matmul.cu")
    )


def open_gate(screen: SessionScreen, gate: Gate) -> None:
    screen.sid, screen.strategy = "s0001", "autonomous"
    screen.choice = BackendChoice("sim", "NVIDIA H200")
    table = screen.query_one(ResultsTable)
    table.add_version("v0", "original", list(P0))
    table.add_version("v1", "step 1", [*P0, "WORK_PER_THREAD"])
    for _i, (bx, ms) in enumerate(((16, 0.08), (32, 0.095), (8, None))):
        table.put(result({**P0, "block_size_x": bx}, ms, "ok" if ms else "compile_error"), "v0")
    for w, ms in ((2, 0.061), (4, 0.05)):
        table.put(result({**P0, "WORK_PER_THREAD": w}, ms), "v1")
    table.set_baseline(0.08)
    plot = screen.query_one(TuningPlot)
    plot.reset([(ms, vid) for ms, vid in ((0.08, "v0"), (0.095, "v0"), (None, "v0"), (0.061, "v1"), (0.05, "v1"))])
    table.mark_best(table.row_key("v0", "16,16,1,1"))
    screen.query_one(PlanView).show(
        [
            {"id": "1", "title": "Tile the inner loop", "state": "approved", "reason": ""},
            {"id": "2", "title": "Stage tiles in shared memory", "state": "proposed", "reason": ""},
        ]
    )
    screen.bridge._pending = Future()  # the screen waits on this gate as it would on the engine's
    screen.on_gate_opened(GateOpened(gate))
    screen._show_progress()


def test_every_gate_kind_has_a_snapshot():
    assert set(GATES) == set(g.GATES) and all(type(GATES[k]) is g.GATES[k] for k in GATES)


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("kind", list(GATES))
def test_session_screen_at_each_gate(snap_compare, tmp_path, theme, kind):
    app = session_app(theme, tmp_path)

    async def at_gate(pilot):
        await pilot.pause()
        open_gate(app.screen, GATES[kind])
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=at_gate)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("kind", list(GATES))
def test_each_gate_at_80x24_and_120x40(snap_compare, tmp_path, kind, size):
    """Issue 37: at 80x24 the gate's keys, the GPU and SIMULATED, every parameter, the verdict and
    the note's start show; the row under the cursor in full below the table."""
    app = session_app("kt-dark", tmp_path)

    async def at_gate(pilot):
        await pilot.pause()
        open_gate(app.screen, GATES[kind])
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=at_gate)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (200, 50)])
def test_session_screen_fits_the_terminal(snap_compare, tmp_path, size):
    """Issue 23: at any terminal of 80x24 or more the time, speedup and status columns, the status
    bar and the footer's decision keys show; below 120 columns the source pane folds away."""
    app = session_app("kt-dark", tmp_path)

    async def at_gate(pilot):
        await pilot.pause()
        open_gate(app.screen, GATES["accept"])
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=at_gate)


async def test_time_speedup_and_status_show_at_80_columns(tmp_path):
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    app = session_app("kt-dark", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        open_gate(app.screen, GATES["sweep"])
        await pilot.pause()
        await pilot.pause()
        table = app.screen.query_one(ResultsTable)
        right = table.region.right
        for key in ("time", "speedup", "status"):
            i = [c.value for c in table.columns].index(key)
            x = table.region.x + sum(c.get_render_width(table) for c in list(table.columns.values())[: i + 1])
            assert x <= right, f"{key} is cut off"
        keys = app.screen.query_one(Footer).query(FooterKey)
        assert sum(k.outer_size.width for k in keys) <= 80
        assert {"Approve", "Skip", "Stop", "Help"} <= {k.description for k in keys}
        assert "WAITING FOR YOU" in str(app.screen.query_one("#status").render())


def stored_sessions(store: Store) -> None:
    fixed = {
        "created": "2026-11-20 10:00:00",
        "updated": "2026-11-20 10:30:00",
        "backend": "sim",
        "gpu": "NVIDIA H200",
        "simulated": 1,
    }
    store.create_session(
        id="s0001",
        kernel_path="examples/matmul.cu",
        kernel_name="matmul",
        state="finished",
        strategy="autonomous",
        baseline_ms=0.08,
        best_ms=0.05,
        **fixed,
    )
    store.create_session(
        id="s0002",
        kernel_path="examples/vector_add.cu",
        kernel_name="vector_add",
        state="stopped",
        strategy="sweep",
        **fixed,
    )


@pytest.mark.parametrize("theme", THEMES)
def test_sessions_browser(snap_compare, tmp_path, monkeypatch, theme):
    from kt_tui.ui.sessions_screen import SessionsScreen

    monkeypatch.chdir(tmp_path)
    store = Store("sessions.db")
    stored_sessions(store)
    app = SnapApp(load_settings({"theme": theme}), store, lambda app: SessionsScreen(store))
    assert snap_compare(app, terminal_size=SIZE)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_sessions_browser_at_80x24_and_120x40(snap_compare, tmp_path, monkeypatch, size):
    from kt_tui.ui.sessions_screen import SessionsScreen

    monkeypatch.chdir(tmp_path)
    store = Store("sessions.db")
    stored_sessions(store)
    app = SnapApp(load_settings({}), store, lambda app: SessionsScreen(store))
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("theme", THEMES)
def test_export_screen(snap_compare, tmp_path, monkeypatch, theme):
    from kt_tui.ui import export_screen

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(export_screen, "default_folder", lambda store, sid: f"./matmul-{sid}-export")
    store = Store("sessions.db")
    stored_sessions(store)

    def screens(app):
        from kt_tui.ui.sessions_screen import SessionsScreen

        app.call_after_refresh(app.push_screen, export_screen.ExportScreen(store, "s0001"))
        return SessionsScreen(store)

    app = SnapApp(load_settings({"theme": theme}), store, screens)
    assert snap_compare(app, terminal_size=SIZE)
