"""What a resumed session's first frame waits for (issue 24 item 3) and what the garbage collector
walks afterwards (issue 23: modal opens): behaviour, not timings."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import io
import subprocess
import sys
import threading

import pytest
from rich.console import Console
from textual.widgets import RichLog, Static

from kt_tui.config import load_settings
from kt_tui.front import commands
from kt_tui.front.commands import tui_app
from kt_tui.store import Store
from kt_tui.ui.gate_view import PlanView
from kt_tui.ui.plot import TuningPlot
from kt_tui.ui.session_screen import SessionScreen
from kt_tui.ui.widgets import ResultsTable

from ..conftest import ROOT

SIZE = (150, 45)
RESULTS = 3000


def bench_tui():
    """benchmarks/tui.py: its FakeGpu worker and its fill() of a big session."""
    spec = importlib.util.spec_from_file_location("bench_tui", ROOT / "benchmarks" / "tui.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def wait_for(condition, timeout=30.0):
    waited = 0.0
    while not condition():
        assert waited < timeout, "timed out waiting for the UI"
        await asyncio.sleep(0.02)
        waited += 0.02


def _resumable(monkeypatch, results: int):
    """A stored session of `results` results to resume, and the stand-in GPU its resume gets."""
    bench = bench_tui()
    settings = load_settings({})
    sid = bench.fill(settings.db, results)
    gpu = bench.FakeGpu(rate=1000, seconds=0.0)
    monkeypatch.setattr(commands, "make_worker", lambda settings, start=False: gpu)
    return settings, sid, gpu


async def test_the_first_frame_holds_the_visible_rows_and_the_rest_comes_after(monkeypatch):
    from textual.app import App

    settings, sid, gpu = _resumable(monkeypatch, RESULTS)
    Store(settings.db).put_step(sid, "tile", title="Tile in shared memory", state="accepted", reason="1.3x")
    seen: dict = {}
    real_display = App._display

    def display(self, screen, renderable):
        real_display(self, screen, renderable)
        if not seen and isinstance(screen, SessionScreen) and screen.query_one(ResultsTable).row_count:
            table, plot = screen.query_one(ResultsTable), screen.query_one(TuningPlot)
            seen.update(
                rows=table.row_count,
                shown=table.size.height - 1,  # its lines less the header's
                points=len(plot.times),
                workers=sorted(w.group for w in self.workers if not w.is_finished or w.is_cancelled),
                threads=sorted(t.name for t in threading.enumerate()),
                engine=screen.engine,
                frozen=gc.get_freeze_count(),
                collecting=gc.isenabled(),
                hidden_tabs=[len(screen.query(f"#{tab} > *")) for tab in ("tab-plan", "tab-kernel", "tab-llm")],
                filter_box=len(screen.query("#filter")),
            )

    monkeypatch.setattr(App, "_display", display)
    app = tui_app(settings, Store(settings.db), resume=sid)
    async with app.run_test(size=SIZE):
        await wait_for(lambda: bool(seen))
        screen = app.screen
        table, plot = screen.query_one(ResultsTable), screen.query_one(TuningPlot)
        # the first frame: the rows a screen holds, no plot points, nothing started on a thread yet
        assert seen["shown"] <= seen["rows"] <= SIZE[1]  # the lines it shows, and the rest after
        assert seen["points"] == 0
        assert seen["workers"] == [] and seen["engine"] is None
        assert seen["hidden_tabs"] == [0, 0, 0]  # the Plan, Kernel and LLM tabs are filled after it
        assert seen["filter_box"] == 0  # made when / first opens it
        # then the rest arrives: every stored result's point, the table's rows as the view nears them
        await wait_for(lambda: plot.reading is None and len(plot.times) >= RESULTS)
        plan = screen.query_one(PlanView)  # the stored plan, read for the first frame, shown with its tab
        assert plan.row_count == 1 and [str(c) for c in plan.get_row("tile")[1:]] == [
            "Tile in shared memory",
            "accepted",
            "1.3x",
        ]
        assert screen.query_one("#llm-log", RichLog).lines == []
        assert str(screen.query_one("#kernel-view", Static).render()).startswith("A generated kernel shows here")
        assert table.total >= RESULTS and table.shown == min(table.MAX_ROWS, RESULTS)
        # full garbage collections skip what the app keeps: the imports' objects, then the plot's index
        assert 0 < seen["frozen"] < gc.get_freeze_count()
        # no collection before the first frame (tui_app turned it off for the imports and the screen),
        # and collection on again once it is drawn
        assert seen["collecting"] is False and gc.isenabled()
        await wait_for(lambda: screen.engine is not None)
        gpu.request_stop()
        app.exit()
    assert gc.get_freeze_count() == 0  # unfrozen when the app ends: its garbage can go


def test_starting_the_tui_leaves_the_engine_and_the_llm_sdk_for_later():
    """The openai SDK and the engine's modules take 0.3-1.5 s to import on a busy 2-core machine: they
    come with the first LLM client and the engine thread, after the TUI's first frame."""
    code = "import sys, kt_tui.front.commands, kt_tui.ui.app; print(*sorted({'openai', 'kt_tui.engine.core'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == []


# What the first frame of a resumed session must not wait for: numpy, the engine's strategies and
# core, the session openers (backend pick, compile check, GPU worker), the modals, the exporter and
# the drafter. Each loads later: on the engine thread, with the first modal, or in the warm-up.
NOT_BEFORE_THE_FIRST_FRAME = (
    "numpy",
    "kt_tui.engine.core",
    "kt_tui.engine.registry",
    "kt_tui.engine.strategies",
    "kt_tui.engine.backend",
    "kt_tui.engine.manual",
    "kt_tui.front.session",
    "kt_tui.engine.gates",  # ~35 dataclasses: they come with the engine's first event or gate
    "kt_tui.engine.events",
    "kt_tui.ui.gate_view",
    "kt_tui.gpu.tuner",
    "kt_tui.export",
    "kt_tui.kernel.draft",
    "kt_tui.ui.editors",
    "kt_tui.ui.export_screen",
    "kt_tui.ui.settings_screen",
    "kt_tui.ui.strategy_picker",
    "kt_tui.ui.report_screen",
    "kt_tui.ui.sessions_screen",
    "kt_tui.ui.setup_screens",
    "pygments.lexers.c_cpp",  # Pygments' CUDA lexer: the source pane colours with kernel/syntax.py's
    "rich.pretty",  # with Textual's RichLog, the LLM tab's log
    "tomlkit",  # TOML's writer: the config and the stored spec are only read
    "tree_sitter",  # the CUDA parser: a stored spec's reference kernel is read when it runs
    "kt_tui.kernel.parsed",
    "kt_tui.kernel.spec",  # the stored spec is checked after the first frame (SessionScreen._check_spec)
    "kt_tui.kernel.spec_model",
)

FIRST_FRAME_CHILD = """
import os, sys
from textual.app import App
from kt_tui.config import load_settings
from kt_tui.front import commands
from kt_tui.store import Store

class Gpu:
    def probe(self, *a, **k): return {"backend": "pycuda", "gpu": "FAKE", "errors": {}}
    def run(self, *a, **k): return {"stopped": True}
    def close(self, *a): pass
    request_stop = shutdown = kill = pause = close

commands.make_worker = lambda settings, start=False: Gpu()
seen = []
real = App._display

def display(self, screen, renderable):
    real(self, screen, renderable)
    if not seen and type(screen).__name__ == "SessionScreen" and screen.table.row_count:
        seen.append([name for name in WATCH if name in sys.modules])
        self.exit()

App._display = display
db = sys.argv[1]
app = commands.tui_app(load_settings({"db": db}), Store(db), resume=sys.argv[2])
app.run(headless=True, size=(150, 45))
print("loaded:", *seen[0], flush=True)
os._exit(0)
"""


def test_a_resumed_sessions_first_frame_waits_for_no_numpy_engine_or_modal():
    """Measured in a new process, as a user starts kt-tui: at the first frame none of the modules
    above is loaded (on the old main numpy, the strategies, the session openers and every modal
    were), and the screen still works from there (the other tests here)."""
    bench = bench_tui()
    settings = load_settings({})
    sid = bench.fill(settings.db, 200)
    code = "WATCH = " + repr(NOT_BEFORE_THE_FIRST_FRAME) + "\n" + FIRST_FRAME_CHILD
    out = subprocess.run(
        [sys.executable, "-c", code, str(settings.db), sid],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.stdout.split() == ["loaded:"], out.stdout + out.stderr


def test_the_key_ids_config_may_remap_are_all_known_though_the_screens_load_later():
    """config.toml's [keys] is checked against every screen's binding ids (ui/app.py binding_ids):
    in a new process, where the modals are not loaded yet, it knows as many as once all ui/ is."""
    code = (
        "import pkgutil, importlib, kt_tui.ui\n"
        "from kt_tui.ui.app import binding_ids\n"
        "first = binding_ids()\n"
        "for m in pkgutil.iter_modules(kt_tui.ui.__path__): importlib.import_module('kt_tui.ui.' + m.name)\n"
        "print(len(first), sorted(binding_ids() - first))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    count, missing = out.stdout.split(maxsplit=1)
    assert int(count) > 30 and missing.strip() == "[]", out.stdout + out.stderr


# `kt-tui resume ID` and `kt-tui KERNEL.cu` as a user starts them (cli.main, the app run headless):
# what the first frame of the screen named WANT has loaded of WATCH.
CLI_CHILD = """
import os, shutil, sys
from textual.app import App

seen = []
real_display, real_run = App._display, App.run

def display(self, screen, renderable):
    real_display(self, screen, renderable)
    if not seen and type(screen).__name__ == "SessionScreen":
        seen.append([name for name in WATCH if name in sys.modules])
        self.exit()

App._display = display
App.run = lambda self, **k: real_run(self, headless=True, size=(150, 45))
os.environ["KT_TUI_BACKEND"] = "none"  # the engine thread, started after the first frame, measures nothing
from kt_tui.cli import main
from kt_tui.front import commands

commands.check_terminal = lambda headless: None  # the headless app above stands in for the terminal

main(sys.argv[1:])
print("loaded:", *seen[0], flush=True)
os._exit(0)
"""

# imported on an older main before those first frames: the strategy (for a check of its options that
# nothing given could fail) with its search space and numpy. The settings are a pydantic-settings model
# (issue 37 item 8): it loads before them, and benchmarks/tui.py --first-frame says what that costs.
NOT_BEFORE_THE_COMMANDS_FIRST_FRAME = (
    "numpy",
    "kt_tui.engine.registry",
    "kt_tui.engine.strategies",
    "kt_tui.search",
    "kt_tui.front.session",
    "kt_tui.kernel.draft",
    "kt_tui.ui.setup_screens",
)


def cli_first_frame(*argv: str, watch: tuple[str, ...] = ()) -> list[str]:
    code = "WATCH = " + repr(NOT_BEFORE_THE_COMMANDS_FIRST_FRAME + watch) + "\n" + CLI_CHILD
    out = subprocess.run(
        [sys.executable, "-c", code, *map(str, argv)], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.stdout.startswith("loaded:"), out.stdout + out.stderr
    return out.stdout.split()[1:]


def test_kt_tui_resume_draws_its_first_frame_before_the_strategy_or_numpy_load():
    bench = bench_tui()
    settings = load_settings({})
    sid = bench.fill(settings.db, 200)
    assert cli_first_frame("resume", sid, watch=("kt_tui.kernel.spec_model",)) == []  # the stored spec: after it


def test_kt_tui_on_a_kernel_draws_its_first_frame_before_the_strategy_or_numpy_load(tmp_path):
    for name in ("vector_add.cu", "vector_add.cu.toml"):
        (tmp_path / name).write_bytes((ROOT / "examples" / name).read_bytes())
    assert cli_first_frame(tmp_path / "vector_add.cu") == []


def test_strategy_options_given_are_still_refused_before_the_tui_starts(capsys, monkeypatch, tmp_path):
    """The check the first frame no longer waits for runs as before wherever something given could
    fail it: a flag, a [strategy.NAME] table of config.toml, a strategy named."""
    from textual.app import App

    from kt_tui.cli import main

    monkeypatch.setattr(App, "run", lambda self, **k: pytest.fail("the TUI started"))
    sid = bench_tui().fill(load_settings({}).db, 5)
    assert main(["resume", sid, "--rounds", "3"]) == 2
    assert "--rounds: the strategy 'sweep' has no such option" in capsys.readouterr().err
    kernel = ROOT / "examples" / "vector_add.cu"
    assert main([str(kernel), "--strategy", "nosuch"]) == 2
    assert "unknown strategy 'nosuch'" in capsys.readouterr().err
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "config.toml").write_text("[strategy.sweep]\nrounds = 3\n")
    assert main(["resume", sid]) == 2
    assert "strategy.sweep.rounds" in capsys.readouterr().err
    assert main([str(kernel)]) == 2
    assert "strategy.sweep.rounds" in capsys.readouterr().err


async def test_the_modals_css_is_read_when_the_first_modal_opens(monkeypatch):
    """app.tcss holds the session screen's rules; the modals' (modal.tcss) are parsed when the first of
    them opens, and apply there as before (the help screen's box: 90% wide, a round border)."""
    settings, sid, gpu = _resumable(monkeypatch, 50)
    app = tui_app(settings, Store(settings.db), resume=sid)

    def modal_css() -> bool:
        return any("modal.tcss" in str(source) for source in app.stylesheet.source)

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, SessionScreen) and app.screen.table.row_count > 0)
        assert not modal_css()
        await pilot.press("question_mark")
        await wait_for(lambda: type(app.screen).__name__ == "HelpScreen")
        await pilot.pause()
        box = app.screen.query_one(".editor")
        assert modal_css() and box.styles.width.value == 90 and box.styles.border_top[0] == "round"
        gpu.request_stop()
        app.exit()


async def test_the_stylesheet_is_parsed_once_before_the_first_frame(monkeypatch):
    """The theme is set before Textual first parses the CSS (ui/app.py _first_theme): set in on_mount,
    as on the old main, Textual parsed every source again with the theme's colours before the first
    frame. The theme still applies: its variables and its class."""
    from textual.app import App
    from textual.css.stylesheet import Stylesheet

    settings, sid, gpu = _resumable(monkeypatch, 20)
    reparsed: list[int] = []
    real_reparse, real_display = Stylesheet.reparse, App._display
    seen: dict = {}

    def reparse(self):
        reparsed.append(1)
        real_reparse(self)

    def display(self, screen, renderable):
        real_display(self, screen, renderable)
        if not seen and isinstance(screen, SessionScreen) and screen.query_one(ResultsTable).row_count:
            seen.update(reparsed=len(reparsed), theme=self.theme, classes=set(self.classes))

    monkeypatch.setattr(Stylesheet, "reparse", reparse)
    monkeypatch.setattr(App, "_display", display)
    app = tui_app(settings, Store(settings.db), resume=sid)
    async with app.run_test(size=SIZE):
        await wait_for(lambda: bool(seen))
        assert seen["reparsed"] == 0
        assert seen["theme"] == "kt-dark" and {"-theme-kt-dark", "-dark-mode"} <= seen["classes"]
        assert app.stylesheet._variables["primary"] == app.get_css_variables()["primary"]
        gpu.request_stop()
        app.exit()


def test_leaving_at_the_first_frame_leaves_no_traceback():
    """The hidden tabs are filled after the first frame: a user who quits at once (the app exits at
    its first frame here) must not get a MountError from a screen that is already going."""
    bench = bench_tui()
    settings = load_settings({})
    sid = bench.fill(settings.db, 200)
    code = "WATCH = ()\n" + CLI_CHILD
    out = subprocess.run(
        [sys.executable, "-c", code, "resume", sid], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert out.stdout.startswith("loaded:"), out.stdout + out.stderr
    assert "MountError" not in out.stdout + out.stderr and "Traceback" not in out.stdout + out.stderr


async def test_the_session_screens_widgets_are_styled_once_before_the_first_frame(monkeypatch):
    """Its widgets are styled as they mount, and not again before the first frame: the screen's size
    classes (-wide/-narrow, -tall/-short) are set when it is made, from the app's size (set by the
    first Resize, as Textual does, every widget was styled again, ~45 M instructions), and Textual's
    restyling of a screen as it is shown is skipped the first time (~45 M more). The classes still
    follow the size, and a screen shown again is restyled as Textual asks."""
    from textual import events
    from textual.app import App

    settings, sid, gpu = _resumable(monkeypatch, 50)
    restyled: list[set] = []
    real_restyle, real_display = SessionScreen.update_node_styles, App._display
    seen: dict = {}

    def restyle(self, animate=True):
        if not seen:
            restyled.append(set(self.classes))
        real_restyle(self, animate)

    def display(self, screen, renderable):
        real_display(self, screen, renderable)
        if not seen and isinstance(screen, SessionScreen) and screen.query_one(ResultsTable).row_count:
            seen.update(classes=set(screen.classes))

    monkeypatch.setattr(SessionScreen, "update_node_styles", restyle)
    monkeypatch.setattr(App, "_display", display)
    app = tui_app(settings, Store(settings.db), resume=sid)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: bool(seen))
        assert {"-wide", "-tall"} <= seen["classes"] and not {"-narrow", "-short"} & seen["classes"]
        assert restyled == []  # the old main: twice, for the size classes and as the screen was shown
        await pilot.resize_terminal(100, 25)
        await wait_for(lambda: {"-narrow", "-short"} <= app.screen.classes)
        assert not {"-wide", "-tall"} & app.screen.classes
        again = events.ScreenResume()
        app.screen.on_screen_resume(again)
        assert again.refresh_styles  # shown again: Textual restyles it as it asks
        gpu.request_stop()
        app.exit()


def _original_row(settings, sid: str, verified) -> str:
    """A stored result of the original kernel at its baseline configuration (block_size_x 256 in
    examples/vector_add.cu.toml), faster than every other row: the table's reference row."""
    store = Store(settings.db)
    vid = store.versions(sid)[0]["id"]
    store.add_results(
        sid,
        vid,
        "old",
        [{"key": "256", "params": {"block_size_x": 256}, "time_ms": 0.5, "status": "ok", "verified": verified}],
    )
    return "256"


async def test_a_resumed_sessions_spec_is_read_after_its_first_frame_then_shown(monkeypatch):
    """The first frame shows the stored rows without the spec's models (pydantic); right after it the
    spec is read through its checks: its summary shows, and the original configuration's row is
    marked as the reference and ranked as a trusted row (nothing checks the reference itself)."""
    from textual.app import App

    settings, sid, gpu = _resumable(monkeypatch, 100)
    ref = _original_row(settings, sid, verified=None)
    seen: dict = {}
    real_display = App._display

    def display(self, screen, renderable):
        real_display(self, screen, renderable)
        if not seen and isinstance(screen, SessionScreen) and screen.table.row_count:
            seen.update(spec=screen.spec, summary=str(screen.query_one("#spec", Static).render()))

    monkeypatch.setattr(App, "_display", display)
    app = tui_app(settings, Store(settings.db), resume=sid)
    async with app.run_test(size=SIZE):
        await wait_for(lambda: bool(seen))
        assert isinstance(seen["spec"], str) and seen["summary"] == ""  # the stored JSON, not read yet
        screen = app.screen
        await wait_for(lambda: not isinstance(screen.spec, str))
        console = Console(width=120, record=True, file=io.StringIO())
        console.print(screen.query_one("#spec", Static).content)
        summary = console.export_text()
        assert "vector_add" in summary and "tune block_size_x" in summary
        table = screen.table
        assert table.reference_key == ref
        assert [r.key.value for r in table.ordered_rows][0] == ref  # the fastest trusted row: first
        assert str(table.get_row(ref)[table.get_column_index("verified")]) == "ref"
        await wait_for(lambda: screen.engine is not None)  # the session goes on
        gpu.request_stop()
        app.exit()


async def test_a_tampered_stored_spec_stops_the_resumed_session_on_its_screen(monkeypatch):
    """A stored spec that does not pass its checks: the screen says so, naming the field, no engine
    starts, and q leaves with status 2 and the reason (the old main raised it out of the app's
    on_mount: Textual's traceback, then the line)."""
    import json
    import sqlite3

    bench = bench_tui()
    settings = load_settings({})
    sid = bench.fill(settings.db, 50)
    with sqlite3.connect(settings.db) as c:
        vid, plain = c.execute("select id, spec_json from versions where session = ?", [sid]).fetchone()
        bad = {**json.loads(plain), "restrictions": ['__import__("os").system("true")']}
        c.execute("update versions set spec_json = ? where id = ?", [json.dumps(bad), vid])
    gpu = bench.FakeGpu(rate=1000, seconds=0.0)
    monkeypatch.setattr(commands, "make_worker", lambda settings, start=False: gpu)
    app = tui_app(settings, Store(settings.db), resume=sid)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, SessionScreen) and app.screen.problem is not None)
        screen = app.screen
        gate = str(screen.query_one("#gate", Static).render())
        assert gate.startswith("Cannot go on: the stored spec: restrictions[0]") and "Press q to quit" in gate
        await pilot.pause(0.3)
        assert screen.engine is None and not [w for w in app.workers if w.group == "engine"]
        await pilot.press("q")
    assert app.return_code == 2
