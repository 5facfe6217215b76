"""The session screen: kernel and spec on the left; the pending decision, progress and live
benchmark table on the right. The engine runs in a thread worker and talks through a Bridge."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on, work
from textual._context import NoActiveAppError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static, TabbedContent, TabPane

from ..config import Settings
from ..errors import UserError
from ..gpu.scale import parse_gpus
from ..records import Result, config_key
from ..store import SessionStore, Store
from . import prefs
from .bridge import Bridge, Flush, GateOpened
from .keys import TABS, keys_by_id
from .plot import TuningPlot
from .results import short_label
from .services import Services
from .session_actions import SessionActions
from .session_events import SessionEvents
from .session_stored import StoredView, freeze_heap
from .status import FitFooter, StatusBar, run_progress, status_text
from .widgets import GatePanel, ProgressLine, ResultsTable, SourceView, SpecSummary

if TYPE_CHECKING:
    from ..engine.backend import BackendChoice
    from ..engine.gates import Gate
    from ..kernel.spec import Spec

# Imported where used: the engine's events and gates and their views (gate_view.py), which the first
# frame does without (session_events.py says why).


def _param_names(spec_json: str) -> list[str]:
    """The tuned parameters' names of a stored spec, read before it is checked ([] if it cannot say)."""
    try:
        plain = json.loads(spec_json)
    except ValueError:
        return []
    params = plain.get("tune_params") if isinstance(plain, dict) else None
    return [str(n) for n in params] if isinstance(params, dict) else []


class Ready(Message):
    def __init__(self, sid: str, choice: BackendChoice) -> None:
        super().__init__()
        self.sid, self.choice = sid, choice


class Problem(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class SessionScreen(StoredView, SessionActions, SessionEvents, Screen):
    # below 120 columns the source pane folds away (c shows it); the table keeps time, speedup, status
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]
    BINDINGS = [
        Binding("s", "start", "Approve", id="start"),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("k", "skip", "Skip", id="skip"),
        Binding("t", "retry", "Retry", id="retry"),
        Binding("x", "stop", "Stop", id="stop"),
        Binding("p", "pause", "Pause/resume", id="pause"),
        Binding("A", "approve_all", "Approve all", id="approve_all"),
        Binding("f2", "settings", "Settings", id="settings"),
        Binding("w", "switch_strategy", "Strategy", id="switch_strategy"),
        Binding("o", "sort", "Sort column", id="sort", show=False),
        Binding("slash", "filter", "Filter rows", id="filter", key_display="/", show=False),
        Binding("r", "reverse", "Reverse sort", id="reverse", show=False),
        Binding("q", "quit_session", "Quit", id="quit"),
        Binding("m", "sanitize('memcheck')", "memcheck", id="sanitize"),
        Binding("R", "sanitize('racecheck')", "racecheck", id="racecheck", show=False),
        Binding("X", "export", "Export", id="export", show=False),
        Binding("v", "toggle_source", "Best/original kernel", id="toggle_source", show=False),
        Binding("c", "toggle_pane", "Source pane", id="toggle_pane", show=False),
        Binding("u", "undo", "Undo", id="undo"),
        Binding("question_mark,f1", "help", "Help", id="help", key_display="?"),
        *[Binding(key, f"tab('{tab}')", f"{label} tab", id=f"tab_{tab}", show=False) for tab, label, key in TABS],
    ]

    def __init__(
        self,
        settings: Settings,
        store: Store,
        source: str,
        spec: Spec | str,
        prepare: Callable,
        sid: str | None = None,
        kernel_label: str = "",
        services: Services | None = None,
    ) -> None:
        super().__init__()
        self.settings, self.store, self.source, self.spec = settings, store, source, spec
        self.services = services  # from front/, through the app; None where no engine runs (snapshots)
        self.prepare, self.sid, self.kernel_label = prepare, sid, kernel_label
        self.bridge = Bridge(self)
        self.engine = None
        self.gpu = None
        self.gate: Gate | None = None
        self.choice: BackendChoice | None = None
        self.state = "starting"
        self.run_info: dict = {}
        self.baseline_ms: float | None = None
        self.best: tuple[str, float | None] | None = None  # the session's best: key and time
        self.current: dict[str, Any] | None = None
        self.autopilot = False
        self.paused = False
        self.llm_line = ""
        self.results_added = False
        self.plotted: dict[tuple, int] = {}  # (version, config key) -> its point on the plot
        self.unplotted: list[tuple[Result, str | None]] | None = None  # results that came while the plot loads
        self.steps: list[dict] = []  # the plan as shown: read once, then kept up to date from step events
        self.plot_stale = False
        self.strategy = settings.strategy
        self.best_version: str | None = None
        self.show_original = False
        self.shown_source: tuple | None = None
        self.bindings_stale = False
        self.held: tuple | None = None  # (gate, decision, timer): a skip or stop that u can still take back
        self.stopping = False
        self.problem: str | None = None
        self.shown_once = False
        self._size_classes()

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        """Shown the first time: its widgets were styled as they mounted, with the classes they have
        (_size_classes), so Textual's restyling of every one of them (Screen._on_screen_resume, which
        runs after this) would change nothing but delay the first frame. Shown again, it restyles."""
        if not self.shown_once:
            self.shown_once = True
            event.refresh_styles = False

    def _size_classes(self) -> None:
        """The breakpoint classes for the app's size, set before the widgets are first styled: set
        by the first Resize, as Textual does, they would style every widget again before the first frame."""
        try:
            width, height = self.app.size
        except NoActiveAppError:  # made outside a running app (tests): the first Resize sets them
            return
        for size, points in ((width, self.HORIZONTAL_BREAKPOINTS), (height, self.VERTICAL_BREAKPOINTS)):
            self.add_class(*self._get_breakpoint_classes(size, points), update=False)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="banner")
        with Horizontal():
            with Vertical(id="left"):
                yield Static(id="source-label")
                with VerticalScroll(id="source-scroll"):
                    yield SourceView(id="source")
                yield SpecSummary(id="spec")
            with Vertical(id="right"):
                with VerticalScroll(id="gate-scroll"):
                    yield GatePanel("Preparing…", id="gate")
                with TabbedContent(id="tabs"):
                    with TabPane("Results", id="tab-results"):
                        yield ProgressLine(id="progress")
                        yield TuningPlot(id="plot")
                        yield ResultsTable(id="results")
                    # their contents come after the first frame (_fill_tabs): it shows the Results tab
                    yield TabPane("Plan", id="tab-plan")
                    yield TabPane("Kernel", id="tab-kernel")
                    yield TabPane("LLM", id="tab-llm")
                    yield TabPane("Profile", id="tab-profile")
        yield StatusBar(id="status")
        yield FitFooter(compact=True, show_command_palette=False)  # ctrl+p still opens it; ? says so

    def on_mount(self) -> None:
        table = self.table = self.query_one(ResultsTable)  # kept: the event handlers use it at every result
        if isinstance(self.spec, str):  # a stored spec: checked once the first frame is drawn, before the rest
            self.after_first_frame(self._check_spec)
            table.setup(_param_names(self.spec), workers=self._several_workers())
        else:
            self.query_one(SpecSummary).show(self.spec)
            names = list(self.spec.tune_params)
            table.setup(names, config_key(names, self.spec.baseline_params()), workers=self._several_workers())
        self.after_first_frame(self._fill_tabs)  # first: whatever runs after the first frame may use them
        self.query_one(TuningPlot).labels = table.labels
        self._show_source()
        self._banner()
        self._pane(prefs.load().get("source_pane"))
        if self.sid:
            self._load_stored()
        self.set_interval(1.0, self._show_progress)
        self.set_interval(0.25, self._catch_up)
        self.query_one(GatePanel).focus()  # the decision keys act from here; j/k move in the table
        self.after_first_frame(getattr(self.app, "first_frame_drawn", freeze_heap))  # KtApp's: collection back on
        self.after_first_frame(self._start_engine)
        self.after_first_frame(self._warm_up)

    def _check_spec(self) -> None:
        """The stored spec, read through its checks (kernel/spec.py, with pydantic) after the first
        frame, which shows the stored rows without it: then its summary and the table's reference
        row. One that does not pass them (a tampered database) stops the session, naming the field."""
        from ..kernel.spec import spec_from_plain  # here: the spec's models load after the first frame

        try:
            spec = spec_from_plain(str(self.spec))
        except UserError as e:
            self.on_problem(Problem(str(e)))
            return
        self.spec = spec
        self.query_one(SpecSummary).show(spec)
        names = list(spec.tune_params)
        self.table.set_reference(config_key(names, spec.baseline_params()))

    def _start_engine(self) -> None:
        if self.problem is None:  # none from _check_spec
            self._engine_thread()

    async def _fill_tabs(self) -> None:
        """The hidden tabs' contents: the plan (shown as read by _load_stored), the generated
        kernel and the LLM log."""
        from textual.widgets import RichLog  # here: it loads rich.pretty, which the first frame does without

        from .gate_view import PlanView
        from .profile_tab import ProfileView

        panes = [self.query_one(f"#tab-{name}", TabPane) for name in ("plan", "kernel", "llm", "profile")]
        if not all(p.is_attached for p in panes):
            return  # the app is leaving already (quit at its first frame): nothing to fill
        await panes[0].mount(PlanView(id="plan"))
        await panes[1].mount(VerticalScroll(Static("No generated kernel yet.", id="kernel-view")))
        await panes[2].mount(RichLog(id="llm-log", wrap=True, markup=False))
        await panes[3].mount(ProfileView(id="profile"))
        self.show_profile()
        if self.steps:
            self.query_one(PlanView).show(self.steps)

    def show_profile(self) -> None:
        """The Profile tab and the table's %peak column, from the store (a profile or the facts changed)."""
        from .profile_tab import ProfileView, peak_cells

        if self.sid and self.query(ProfileView):
            self.query_one(ProfileView).show(self.data, bool(self.choice and self.choice.simulated))
            self.query_one(ResultsTable).set_peak(peak_cells(self.data))

    @work(thread=True, group="warm")
    def _warm_up(self) -> None:
        """What the modals need the first time they open, loaded while the user reads the first gate."""
        from ..kernel.syntax import highlights  # here: after the first frame, as the rest of this warm-up
        from . import editors, export_screen, report_screen, settings_screen  # noqa: F401 - here: as above
        from .strategy_picker import strategies  # here: as above

        strategies()
        highlights("__global__ void k(float *x) { x[0] = 1.0f; }\n")

    def _services(self) -> Services:
        if self.services is None:  # a screen made without them (snapshots) runs no engine
            raise RuntimeError("this session screen has no services to run an engine with")
        return self.services

    # -- engine thread -------------------------------------------------------------------
    @work(thread=True, group="engine", exclusive=True)
    def _engine_thread(self) -> None:
        self.gpu = self._services().make_worker(self.settings)
        try:
            sid, choice = self.prepare(self.gpu)
        except UserError as e:
            self.gpu.close()
            self.post_message(Problem(str(e)))
            return
        self.post_message(Ready(sid, choice))
        engine = self._services().make_engine(
            self.store, self.settings, sid, self.gpu, choice, self.bridge.decide, self.bridge.on_event
        )
        self.engine = engine
        from ..engine.registry import get_strategy  # here: the strategy's modules load on this thread

        try:
            engine.run(get_strategy(SessionStore(self.store, sid).session()["strategy"]))
        except Exception as e:  # noqa: BLE001 - the engine stored the failure; show it, stay open
            self.post_message(Problem(f"the session failed: {type(e).__name__}: {e}"))
        finally:
            self.gpu.close()

    # -- messages from the engine (UI thread) ----------------------------------------------
    def on_ready(self, message: Ready) -> None:
        self.sid, self.choice = message.sid, message.choice
        self.show_profile()
        if message.choice.note:
            self.notify(message.choice.note, title="Backend", timeout=6, markup=False)
        if self._services().llm_factory(self.settings) is None:
            from ..engine.manual import CONNECT  # here: it loads pydantic models the first frame does without

            self.notify(
                f"No LLM configured: with explicit or autonomous ([{self.keys['switch_strategy']}] switches) "
                f"you write the steps and kernels yourself. {CONNECT}",
                title="Manual mode",
                timeout=6,
                markup=False,
            )
        self.strategy = self.data.session()["strategy"]
        self._add_versions()
        self._banner()

    def on_problem(self, message: Problem) -> None:
        self.state = "error"
        self.problem = message.text  # said again on the terminal when the app exits, with status 2
        self._banner()
        self._show_progress()
        panel = self.query_one(GatePanel)
        panel.update(
            Text.assemble(("Cannot go on: ", "bold red"), message.text, f"\n\nPress {self.keys['quit']} to quit.")
        )
        self.refresh_bindings()

    def on_gate_opened(self, message: GateOpened) -> None:
        gate = message.gate
        self.gate = gate
        self.state = "waiting"
        self.stopping = False
        if self.autopilot:
            decision = self._services().make_policy()(gate)
            if decision.choice != "stop":
                self._decide(decision.choice, decision.value, by="autopilot", why=decision.why)
                return
            self.autopilot = False
        from .gate_view import render_gate, view_for

        view = view_for(gate)
        self.query_one(GatePanel).update(render_gate(gate, self.keys, bool(self.choice and self.choice.simulated)))
        self.query_one(ResultsTable).mark_candidate(*(view.candidate(gate) if view.candidate else (None,)))
        if view.kernel_view:
            self.query_one("#kernel-view", Static).update(view.kernel_view(gate))
        if view.tab:
            self.query_one(TabbedContent).active = view.tab
        self.refresh_bindings()
        if view.reopen_editor(gate):
            self.action_edit()  # the user's own answer did not parse: back to it, with its problems

    def on_flush(self, message: Flush) -> None:
        self.results_added = False
        from ..engine import events as ev  # loaded by the engine that sent them

        events = self.bridge.drain()
        handlers = self.event_handlers()
        for e in events:
            handler = handlers.get(type(e))
            if handler:
                handler(self, e)
        if self.results_added:
            self.plot_stale = True  # the plot, the sort and the progress line catch up on a timer
        if any(not isinstance(e, (ev.Result, ev.Begin)) for e in events):  # results change no binding
            self._show_progress()
            self.refresh_bindings()

    # -- display -------------------------------------------------------------------------
    def refresh_bindings(self) -> None:
        """Once a frame at most: the footer rebuilds itself at each call (tens of ms), and a gate,
        the events around it and a change of focus call this several times in a row."""
        if not self.bindings_stale:
            self.bindings_stale = True
            self.call_after_refresh(self._publish_bindings)

    def _publish_bindings(self) -> None:
        self.bindings_stale = False
        super().refresh_bindings()

    @property
    def keys(self) -> dict[str, str]:
        """Binding id -> the key that triggers it, with config.toml's [keys] applied."""
        return keys_by_id(self.BINDINGS, self.settings.keys or {})

    def _banner(self) -> None:
        label = self.choice.label() if self.choice else "no backend" if self.state == "error" else "choosing a backend…"
        style = "bold black on yellow" if self.choice and self.choice.simulated else "bold"
        self.query_one("#banner", Static).update(
            Text.assemble(
                (f" {self.kernel_label} ", "bold"),
                f" session {self.sid or '(new)'}  strategy: {self.strategy}  ",
                (f" {label} ", style),
            )
        )

    def _add_versions(self, vid: str | None = None) -> None:
        """Tell the table about kernel versions it does not know yet (read once per version)."""
        table = self.query_one(ResultsTable)
        if not self.sid or (vid is not None and vid in table.labels):
            return
        for v in self.data.versions():
            if v["id"] not in table.labels:
                names = list(json.loads(v["spec_json"]).get("tune_params", {}))
                table.add_version(v["id"], short_label(v["label"], v["id"]), names)

    def _best_version(self, vid: str | None) -> None:
        if vid and vid != self.best_version:
            self.best_version = vid
            self._show_source()

    def _show_source(self) -> None:
        """The current best kernel, labelled; the original one key away."""
        table = self.query_one(ResultsTable)
        best = self.best_version if self.best_version not in (None, table.original) else None
        vid = None if self.show_original or best is None else best
        if (vid, self.show_original) == self.shown_source:
            return
        self.shown_source = (vid, self.show_original)
        key = self.keys["toggle_source"]
        version = self.data.version(vid) if vid is not None else None
        if vid is None or version is None:
            source, label = self.source, "original kernel" + (f"  ([{key}] shows the best)" if best else "")
        else:
            source = version["source"]
            label = f"best kernel: {table.labels.get(vid, vid[:8])}  ([{key}] shows the original)"
        self.query_one("#source-label", Static).update(Text(label, style="bold"))
        self.query_one(SourceView).show(source)

    def _pause_clock(self, on: bool) -> None:
        run = self.run_info
        if on and run.get("started") and not run.get("paused_at"):
            run["paused_at"] = time.monotonic()
        elif not on and run.get("paused_at"):
            run["paused_s"] += time.monotonic() - run.pop("paused_at")

    def _several_workers(self) -> bool:
        if self.settings.ray_address or parse_gpus(self.settings.gpus) not in (None, 1):
            return True
        return bool(self.sid) and len(self.data.workers(limit=2)) > 1

    def _catch_up(self) -> None:
        if self.plot_stale:
            self.plot_stale = False
            self._show_progress()
            self.query_one(TuningPlot).redraw()
            table = self.query_one(ResultsTable)
            if table.sort_index:
                table.sort_by(table.sort_index, table.sort_reverse)

    def _show_progress(self) -> None:
        table = self.query_one(ResultsTable)
        parts = [f"{table.total} measured"]
        run = self.run_info
        if run.get("total"):
            which = "after restrictions" if run.get("restricted") else "before restrictions"
            parts[0] = f"{run_progress(self)} ({which})"
        if table.hidden:
            parts.append(f"the table shows the {table.shown} fastest")
        if run.get("started"):
            end = run.get("paused_at") or run.get("ended") or time.monotonic()
            parts.append(f"{end - run['started'] - run.get('paused_s', 0.0):.0f} s elapsed")
        if self.best and self.best[1] is not None:
            parts.append(f"best {self.best[1]:.4f} ms ({self.best[0]})")
            if self.baseline_ms:
                parts.append(f"{self.baseline_ms / self.best[1]:.2f}x over baseline {self.baseline_ms:.4f} ms")
        if self.paused:
            parts.append(f"PAUSED ({self.keys['pause']} resumes)")
        elif self.current and self.state == "running":
            parts.append(f"running {self.current['key']}")
        self.query_one(ProgressLine).update("  ·  ".join(parts))
        self.query_one(StatusBar).update(status_text(self))

    @on(DataTable.HeaderSelected)
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        table = self.query_one(ResultsTable)
        key = str(event.column_key.value)
        if key in table.sortable:
            table.sort_by(key, table.sort_index == key and not table.sort_reverse)
            self._show_progress()
