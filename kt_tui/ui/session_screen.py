"""The session screen: the pending decision, progress and live benchmark table, the kernel and spec
beside them. Its view model is the reactive attributes below, changed only by message handlers
(the engine's events, through ui/bridge.py; keys; stored rows read on a thread); their watchers and
bound widgets redraw what depends on them."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events, on, work
from textual._context import NoActiveAppError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Header, Input, Static, TabbedContent, TabPane, Tabs

from ..config import Settings
from ..errors import UserError
from ..gpu.scale import parse_gpus
from ..records import Result, config_key
from ..store import SessionStore, Store
from . import deciding, prefs, session_actions, session_engine, session_events, session_panes, session_stored, signals
from .bridge import Bridge, Flush, GateOpened
from .confirm import Scroll
from .deciding import Held
from .keys import TABS, keys_by_id
from .plot import TuningPlot
from .services import Services
from .session_engine import EngineEnded, Problem, Ready
from .session_stored import StoredCalls
from .status import FilterInput, StatusBar, how_to_go_on, panel_text, progress_text, status_text
from .stored import StoredPoints, StoredRows
from .widgets import Banner, FitFooter, GatePanel, ProgressLine, ResultsTable, RowDetail, SourceView, SpecSummary

if TYPE_CHECKING:
    from textual.widgets import RichLog

    from ..engine.backend import BackendChoice
    from ..engine.core import Engine
    from ..engine.gates import Gate
    from ..kernel.spec import Spec

# Imported where used: the engine's events and gates and their views (gate_view.py), which the first
# frame does without: they load with the engine, after it.


class SessionScreen(Screen[None]):
    # below 120 columns the source pane folds away (c shows it) and the table abbreviates its headers
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]
    BINDINGS = [
        Binding("s", "start", "Approve", id="start"),
        Binding("e", "edit", "Edit", id="edit"),
        Binding("n", "skip", "Skip", id="skip"),
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

    # -- the view model ------------------------------------------------------------------
    sid: var[str | None] = var(None, init=False)
    strategy: var[str] = var("", init=False)
    choice: var[BackendChoice | None] = var(None, init=False)  # the backend: the banner names its GPU
    state: var[str] = var("starting", init=False, bindings=True)  # the session's, as the engine says it
    problem: var[str | None] = var(None, init=False, bindings=True)  # why the session cannot go on
    gate: var[Gate | None] = var(None, init=False, bindings=True)  # the gate shown, until it is answered
    held: var[Held | None] = var(None, init=False, bindings=True)  # a decision waiting out its undo
    autopilot: var[bool] = var(False, init=False, bindings=True)  # gates decided as --auto would
    paused: var[bool] = var(False, init=False, bindings=True)
    stopping: var[bool] = var(False, init=False)
    activity: var[tuple | None] = var(None, init=False)  # what the engine does while no gate waits

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
        self.prepare, self.kernel_label = prepare, kernel_label
        self.set_reactive(SessionScreen.sid, sid)
        self.set_reactive(SessionScreen.strategy, settings.strategy)
        self.bridge = Bridge(self)
        self.engine: Engine | None = None
        self.engine_running = False  # the engine thread has started and not yet ended
        self.signalled: int | None = None  # the signal that stops the session (ui/signals.py)
        self.gpu: Any = None  # the GPU worker or pool, as services.make_worker made it (ui never imports gpu/)
        # the current run (RunStarted's fields, counted as results come) and the session's numbers
        self.run_info: dict[str, Any] = {}
        self.baseline_ms: float | None = None
        self.best: tuple[str, float | None] | None = None  # the session's best: key and time
        self.best_version: str | None = None
        self.current: dict[str, Any] | None = None  # the configuration running now
        self.steps: list[dict] = []  # the plan as shown: read once, then kept up to date from step events
        self.plotted: dict[tuple, int] = {}  # (version, config key) -> its point on the plot
        self.unplotted: list[tuple[Result, str | None]] | None = None  # results that came while the plot loads
        self.llm_line = ""
        self.results_added = self.plot_stale = self.bindings_stale = False
        self.show_original = False
        self.shown_source: tuple | None = None
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
        yield Banner(self.kernel_label, id="banner").data_bind(
            SessionScreen.sid, SessionScreen.strategy, SessionScreen.choice, SessionScreen.problem, SessionScreen.state
        )
        with Horizontal():
            with Vertical(id="left"):
                yield Static(id="source-label")
                with Scroll(id="source-scroll"):
                    yield SourceView(id="source")
                yield SpecSummary(id="spec")
            with Vertical(id="right"):
                with VerticalScroll(id="gate-scroll", can_focus=False):
                    yield GatePanel("Preparing…", id="gate")
                with TabbedContent(id="tabs"):
                    with TabPane("Results", id="tab-results"):
                        yield ProgressLine(id="progress")
                        yield TuningPlot(id="plot")
                        yield ResultsTable(id="results")
                        yield RowDetail(id="row-detail")
                    # their contents come after the first frame (session_panes.fill_tabs): it shows the Results tab
                    yield TabPane("Plan", id="tab-plan")
                    yield TabPane("Kernel", id="tab-kernel")
                    yield TabPane("LLM", id="tab-llm")
                    yield TabPane("Profile", id="tab-profile")
        yield StatusBar(id="status")
        yield FitFooter(compact=True, show_command_palette=False)  # ctrl+p still opens it; ? says so

    def on_mount(self) -> None:
        table = self.table = self.query_one(ResultsTable)  # kept: the event handlers use it at every result
        self.query_one(Tabs).can_focus = False  # 1-4 pick a tab: Tab goes from the gate panel to the table
        table.narrow = self.app.size.width < 120
        if isinstance(self.spec, str):  # a stored spec: checked once the first frame is drawn, before the rest
            self.after_first_frame(self._check_spec)
            table.setup(session_stored.param_names(self.spec), workers=self._several_workers())
        else:
            self.query_one(SpecSummary).show(self.spec)
            names = list(self.spec.tune_params)
            table.setup(names, config_key(names, self.spec.baseline_params()), workers=self._several_workers())
        self.after_first_frame(session_panes.fill_tabs, self)  # first: whatever runs after the first frame may use them
        self.query_one(TuningPlot).labels = table.labels
        session_panes.show_source(self)
        session_panes.set_pane(self, prefs.load().get("source_pane"))
        if self.sid:
            session_stored.load(self)
        self.set_interval(1.0, self._show_progress)
        self.set_interval(0.25, self._catch_up)
        self.query_one(GatePanel).focus()  # the decision keys act from here; j/k scroll it, Tab goes to the table
        self.after_first_frame(getattr(self.app, "first_frame_drawn", session_stored.freeze_heap))
        self.after_first_frame(self._start_engine)
        self.after_first_frame(self._warm_up)

    def on_unmount(self) -> None:
        session_stored.unfreeze()

    def after_first_frame(self, work, *args) -> None:
        """Starts `work` once the screen's first frame is drawn: threads started sooner share the
        interpreter with the UI thread and delay that frame (a resumed session's first frame waits
        for nothing but its visible rows)."""
        self.call_after_refresh(work, *args)

    def on_resize(self, event: events.Resize) -> None:
        narrow = self.app.size.width < 120
        if narrow != self.table.narrow:
            self.table.set_narrow(narrow)

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
        if self.problem is None and self.signalled is None:  # no problem from _check_spec, no signal yet
            self.engine_running = True
            self.engine_thread()

    def on_engine_ended(self, message: EngineEnded) -> None:
        self.engine_running = False
        if self.signalled is not None:
            signals.leave(self)

    @work(thread=True, group="warm")
    def _warm_up(self) -> None:
        """What the modals need the first time they open, loaded while the user reads the first gate."""
        from ..kernel.syntax import highlights  # here: after the first frame, as the rest of this warm-up
        from . import editors, export_screen, report_screen, settings_screen  # noqa: F401 - here: as above
        from .strategy_picker import strategies  # here: as above

        strategies()
        highlights("__global__ void k(float *x) { x[0] = 1.0f; }\n")

    def services_or_fail(self) -> Services:
        if self.services is None:  # a screen made without them (snapshots) runs no engine
            raise RuntimeError("this session screen has no services to run an engine with")
        return self.services

    @property
    def data(self) -> SessionStore:
        """What the screen reads of its session (the engine writes it)."""
        if self.sid is None:
            raise LookupError("the session has not started")
        return SessionStore(self.store, self.sid)

    @property
    def llm_log(self) -> RichLog:
        """The LLM tab's log (mounted after the first frame: session_panes.fill_tabs)."""
        from textual.widgets import RichLog  # here: it loads rich.pretty, which the first frame does without

        return self.query_one("#llm-log", RichLog)

    @property
    def keys(self) -> dict[str, str]:
        """Binding id -> the key that triggers it, with config.toml's [keys] applied."""
        return keys_by_id(self.BINDINGS, self.settings.keys or {})

    # -- the engine thread ---------------------------------------------------------------
    @work(thread=True, group="engine", exclusive=True)
    def engine_thread(self) -> None:
        try:
            session_engine.run(self)
        finally:
            self.post_message(EngineEnded())

    # -- messages: the only places the model changes --------------------------------------
    def on_ready(self, message: Ready) -> None:
        self.sid, self.choice = message.sid, message.choice
        session_panes.show_profile(self)
        if message.choice.note:
            self.notify(message.choice.note, title="Backend", timeout=6, markup=False)
        if self.services_or_fail().llm_factory(self.settings) is None:
            from ..engine.manual import CONNECT  # here: it loads pydantic models the first frame does without

            self.notify(
                f"No LLM configured: with explicit or autonomous ([{self.keys['switch_strategy']}] switches) "
                f"you write the steps and kernels yourself. {CONNECT}",
                title="Manual mode",
                timeout=6,
                markup=False,
            )
        self.strategy = self.data.session()["strategy"]
        session_stored.add_versions(self)

    def on_problem(self, message: Problem) -> None:
        self.problem = message.text  # said again on the terminal when the app exits, with status 2
        self.state = "error"

    def on_gate_opened(self, message: GateOpened) -> None:
        self.open_gate(message.gate)

    def open_gate(self, gate: Gate) -> None:
        self.state, self.stopping = "waiting", False
        if self.autopilot:
            decision = deciding.autopilot_decision(self, gate)
            if decision is not None:
                deciding.send(self, decision)
                return
            self.autopilot = False  # the policy stops here: the gate is yours
        from .gate_view import view_for

        if gate.kind == "llm_failed" and self.activity == ("asking", getattr(gate, "call", None)):
            session_events.llm_failed(self, gate.title)  # a call of this sitting (a stored one shows as stored)
        view = view_for(gate)
        self.gate = gate
        self.table.mark_candidate(*(view.candidate(gate) if view.candidate else (None,)))
        if view.kernel_view:
            session_panes.show_kernel_view(self, view.kernel_view(gate))
        if view.tab:
            session_panes.show_tab(self, view.tab)
        if view.reopen_editor(gate):
            self.action_edit()  # the user's own answer did not parse: back to it, with its problems

    def on_flush(self, message: Flush) -> None:
        session_events.handle(self, self.bridge.drain())

    def on_stored_calls(self, message: StoredCalls) -> None:
        session_stored.show_calls(self, message.calls)

    def on_stored_rows(self, message: StoredRows) -> None:
        self.table.add_stored(message.rows)
        self._show_progress()

    def on_stored_points(self, message: StoredPoints) -> None:
        session_stored.show_points(self, message)

    # -- watchers: what each part of the model redraws ------------------------------------
    def _watch_gate(self, gate: Gate | None) -> None:
        if gate is None:
            self.table.mark_candidate(None)
        self._show_panel()
        self._show_status()

    def _watch_held(self) -> None:
        self._show_panel()
        self._show_status()

    def _watch_activity(self) -> None:
        self._show_panel()

    def _watch_problem(self) -> None:
        self._show_panel()
        self._show_progress()

    def _watch_paused(self, paused: bool) -> None:
        self._pause_clock(paused)
        self._show_panel()
        self._show_status()

    def _watch_state(self) -> None:
        self._show_status()

    def _watch_stopping(self) -> None:
        self._show_progress()

    def _watch_autopilot(self) -> None:
        self._show_status()

    def _show_panel(self) -> None:
        self.query_one(GatePanel).update(panel_text(self))

    def _show_status(self) -> None:
        self.query_one(StatusBar).update(status_text(self))

    def _show_progress(self) -> None:
        line = self.query_one(ProgressLine)
        line.update(progress_text(self, line.content_region.width or self.app.size.width))
        self._show_status()

    def _pause_clock(self, on: bool) -> None:
        run = self.run_info
        if on and run.get("started") and not run.get("paused_at"):
            run["paused_at"] = time.monotonic()
        elif not on and run.get("paused_at"):
            run["paused_s"] += time.monotonic() - run.pop("paused_at")

    def _catch_up(self) -> None:
        if self.held is not None:  # its countdown
            self._show_panel()
        if self.plot_stale:
            self.plot_stale = False
            self._show_progress()
            self.query_one(TuningPlot).redraw()

    def _several_workers(self) -> bool:
        if self.settings.ray_address or parse_gpus(self.settings.gpus) not in (None, 1):
            return True
        return bool(self.sid) and len(self.data.workers(limit=2)) > 1

    def refresh_bindings(self) -> None:
        """Once a frame at most: the footer rebuilds itself at each call (tens of ms), and a gate,
        the events around it and a change of focus call this several times in a row."""
        if not self.bindings_stale:
            self.bindings_stale = True
            self.call_after_refresh(self._publish_bindings)

    def _publish_bindings(self) -> None:
        self.bindings_stale = False
        super().refresh_bindings()

    # -- keys ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        return session_actions.applies(self, action)

    def footer_labels(self) -> dict[str, str]:
        return session_actions.footer_labels(self)

    def action_start(self) -> None:
        deciding.decide(self, "approve")

    def action_skip(self) -> None:
        deciding.skip(self)

    def action_retry(self) -> None:
        deciding.decide(self, "retry")

    def action_stop(self) -> None:
        deciding.stop(self)

    def action_undo(self) -> None:
        deciding.undo(self)

    def action_approve_all(self) -> None:
        deciding.approve_all(self)

    def action_pause(self) -> None:
        if self.engine is not None:
            self.engine.pause(not self.paused)
            self.notify(
                f"Paused after the current configuration; {self.keys['pause']} resumes."
                if not self.paused
                else "Resumed.",
                markup=False,
            )

    def action_edit(self) -> None:
        session_actions.edit(self)

    def action_switch_strategy(self) -> None:
        session_actions.switch_strategy(self)

    def action_settings(self) -> None:
        session_actions.settings(self)

    def action_help(self) -> None:
        session_actions.show_help(self)

    def action_tab(self, tab: str) -> None:
        session_panes.show_tab(self, f"tab-{tab}")

    def action_toggle_source(self) -> None:
        self.show_original = not self.show_original
        session_panes.show_source(self)

    def action_toggle_pane(self) -> None:
        session_panes.toggle_pane(self)

    def action_sort(self) -> None:
        table = self.table
        cols = table.sortable
        nxt = cols[(cols.index(table.sort_index) + 1) % len(cols)] if table.sort_index in cols else "time"
        table.sort_by(nxt, False)
        self._show_progress()

    def action_reverse(self) -> None:
        table = self.table
        table.sort_by(table.sort_index or "time", not table.sort_reverse)
        self._show_progress()

    async def action_filter(self) -> None:
        await session_actions.open_filter(self)

    def action_sanitize(self, tool: str) -> None:
        from .report_screen import start_sanitizer  # here: a modal the first frame does without

        start_sanitizer(self, tool)

    def action_export(self) -> None:
        session_actions.export(self)

    def action_quit_session(self) -> None:
        if self.held is not None:  # a skip or stop waiting out its undo: it was meant
            deciding.send_held(self)
        self.shutdown()
        if getattr(self.app, "browse", False):
            self.app.pop_screen()
        elif self.problem:  # the session could not go on: the shell gets status 2 and the reason
            from rich.text import Text

            self.app.exit(return_code=2, message=Text(f"kt-tui: {self.problem}"))
        elif self.sid:  # the shell gets how to come back to it, as after a Ctrl-C
            from rich.text import Text

            self.app.exit(message=Text(f"kt-tui: {how_to_go_on(self.sid, self.state)}"))
        else:
            self.app.exit()

    def shutdown(self) -> None:
        self.bridge.close()
        if self.engine is not None:
            self.engine.llm_cancel.set()  # the engine thread leaves an LLM call at once
        if self.gpu is not None:
            self.gpu.shutdown()
        if self.sid:
            self.data.unlock()

    def on_input_changed(self, event: Input.Changed) -> None:
        if isinstance(event.input, FilterInput):
            self.table.set_filter(event.value)
            self._show_progress()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if isinstance(event.input, FilterInput):
            if not event.value.strip():
                event.input.remove_class("-shown")
            self.table.focus()

    @on(DataTable.HeaderSelected)
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        table = self.table
        key = str(event.column_key.value)
        if key in table.sortable:
            table.sort_by(key, table.sort_index == key and not table.sort_reverse)
            self._show_progress()

    @on(DataTable.RowHighlighted, "#results")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.query_one(RowDetail).show(self.table.detail(event.row_key.value if event.row_key else None))
