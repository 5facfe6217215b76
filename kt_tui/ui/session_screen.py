"""The session screen: kernel and spec on the left; the pending decision, progress and live
benchmark table on the right. The engine runs in a thread worker and talks through a Bridge."""

from __future__ import annotations

import time
from typing import Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from ..config import Settings
from ..engine.backend import BackendChoice
from ..engine.events import Decision, Gate
from ..errors import UserError
from ..kernel.spec import Spec
from ..store import Store
from .bridge import Bridge, Flush, GateOpened
from .widgets import GatePanel, ProgressLine, ResultsTable, SourceView, SpecSummary

CHOICE_KEYS = {"approve": "s", "skip": "k", "stop": "x"}


class Ready(Message):
    def __init__(self, sid: str, choice: BackendChoice) -> None:
        super().__init__()
        self.sid, self.choice = sid, choice


class Problem(Message):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class SessionScreen(Screen):
    BINDINGS = [
        Binding("s", "start", "Start/continue", id="start"),
        Binding("k", "skip", "Skip", id="skip"),
        Binding("x", "stop", "Stop", id="stop"),
        Binding("o", "sort", "Sort column", id="sort"),
        Binding("r", "reverse", "Reverse sort", id="reverse"),
        Binding("q", "quit_session", "Quit", id="quit"),
    ]

    def __init__(self, settings: Settings, store: Store, source: str, spec: Spec,
                 prepare: Callable, sid: str | None = None, kernel_label: str = "") -> None:
        super().__init__()
        self.settings, self.store, self.source, self.spec = settings, store, source, spec
        self.prepare, self.sid, self.kernel_label = prepare, sid, kernel_label
        self.bridge = Bridge(self)
        self.engine = None
        self.gpu = None
        self.gate: Gate | None = None
        self.choice: BackendChoice | None = None
        self.state = "starting"
        self.run_info: dict = {}
        self.baseline_ms: float | None = None
        self.best: dict | None = None
        self.current: dict | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="banner")
        with Horizontal():
            with Vertical(id="left"):
                with VerticalScroll(id="source-scroll"):
                    yield SourceView(id="source")
                yield SpecSummary(id="spec")
            with Vertical(id="right"):
                yield GatePanel("Preparing…", id="gate")
                yield ProgressLine(id="progress")
                yield ResultsTable(id="results")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(SourceView).show(self.source)
        self.query_one(SpecSummary).show(self.spec)
        table = self.query_one(ResultsTable)
        base = self.spec.baseline_params()
        table.setup(list(self.spec.tune_params), ",".join(str(base[n]) for n in self.spec.tune_params))
        self._banner()
        if self.sid:
            self._load_stored()
        self.set_interval(1.0, self._show_progress)
        table.focus()
        self._engine_thread()

    # -- engine thread -------------------------------------------------------------------
    @work(thread=True, group="engine", exclusive=True)
    def _engine_thread(self) -> None:
        from ..commands import make_worker
        from ..engine.core import Engine
        from ..engine.strategies import get_strategy

        self.gpu = make_worker(self.settings)
        try:
            sid, choice = self.prepare(self.gpu)
        except UserError as e:
            self.gpu.close()
            self.post_message(Problem(str(e)))
            return
        self.post_message(Ready(sid, choice))
        engine = Engine(self.store, sid, self.gpu, choice, self.bridge.decide, self.bridge.on_event,
                        cache_dir=self.settings.data_dir / "caches", timeout_s=self.settings.timeout_s)
        self.engine = engine
        try:
            engine.run(get_strategy(self.store.session(sid)["strategy"]))
        except Exception as e:  # noqa: BLE001 - the engine stored the failure; show it, stay open
            self.post_message(Problem(f"the session failed: {type(e).__name__}: {e}"))
        finally:
            self.gpu.close()

    # -- messages from the engine (UI thread) ----------------------------------------------
    def on_ready(self, message: Ready) -> None:
        self.sid, self.choice = message.sid, message.choice
        if message.choice.note:
            self.notify(message.choice.note, title="Backend", timeout=8)
        self._banner()

    def on_problem(self, message: Problem) -> None:
        self.state = "error"
        panel = self.query_one(GatePanel)
        panel.update(Text.assemble(("Cannot go on: ", "bold red"), message.text, "\n\nPress q to quit."))
        self.refresh_bindings()

    def on_gate_opened(self, message: GateOpened) -> None:
        self.gate = message.gate
        self.state = "waiting"
        keys = "   ".join(f"[{CHOICE_KEYS[c]}] {c}" for c in message.gate.choices if c in CHOICE_KEYS)
        body = message.gate.body
        extra = ""
        if message.gate.kind == "sweep":
            extra = f"\n{body.get('done', 0)} of {body.get('total')} configurations measured so far."
        self.query_one(GatePanel).update(Text.assemble(("Decide: ", "bold"), message.gate.title, extra,
                                                       "\n", (keys, "bold")))
        self.refresh_bindings()

    def on_flush(self, message: Flush) -> None:
        table = self.query_one(ResultsTable)
        added = False
        for e in self.bridge.drain():
            d = e.data
            if e.kind == "result":
                table.put(d["result"])
                added = True
                self.current = None
                if d["best"]:
                    self.best = d["result"]
                    table.mark_best(d["result"]["key"])
            elif e.kind == "begin":
                self.current = d
            elif e.kind == "session":
                if d.get("baseline_ms") is not None:
                    self.baseline_ms = d["baseline_ms"]
                    table.set_baseline(self.baseline_ms)
                if "state" in d:
                    self.state = d["state"]
            elif e.kind == "run":
                self.run_info = {**d, "started": time.monotonic(), "done": 0}
                self.state = "running"
                self.query_one(GatePanel).update(Text.assemble(
                    ("Running ", "bold"), f"{d['kind']} on {self.choice.label() if self.choice else d['backend']}",
                    "\n", ("[x] stop after the current configuration", "bold")))
            elif e.kind == "space" and self.run_info.get("run") == d["run"]:
                self.run_info["total"] = d["total"]
            elif e.kind == "run_end":
                self.run_info["ended"] = time.monotonic()
                if d.get("error"):
                    self.notify(d["error"], title=f"run {d['run']} {d['state']}", severity="error", timeout=10)
            elif e.kind == "note":
                self.notify(d["text"])
            elif e.kind == "finished":
                self._finished(d)
        if added and table.sort_index:
            table.sort_by(table.sort_index, table.sort_reverse)
        self._show_progress()
        self.refresh_bindings()

    def _finished(self, d: dict) -> None:
        self.state = d["state"]
        self.gate = None
        text = Text.assemble(("Session ", "bold"), (d["state"], "bold green" if d["state"] == "finished" else "bold"))
        if d.get("error"):
            text.append(f"\n{d['error']}", style="red")
        text.append("\nPress q to quit. `kt-tui sessions` lists it; `kt-tui resume` reopens it.")
        self.query_one(GatePanel).update(text)

    # -- display -------------------------------------------------------------------------
    def _banner(self) -> None:
        label = self.choice.label() if self.choice else "choosing a backend…"
        style = "bold black on yellow" if self.choice and self.choice.simulated else "bold"
        self.query_one("#banner", Static).update(Text.assemble(
            (f" {self.kernel_label} ", "bold"), f" session {self.sid or '(new)'}  ", (f" {label} ", style)))

    def _load_stored(self) -> None:
        s = self.store.session(self.sid)
        table = self.query_one(ResultsTable)
        self.baseline_ms = s.get("baseline_ms")
        table.baseline_ms = self.baseline_ms
        for r in self.store.results(self.sid):
            table.put(r)
        if s.get("best_key") and s.get("best_ms") is not None:
            table.mark_best(s["best_key"])
            self.best = {"key": s["best_key"], "time_ms": s["best_ms"]}

    def _show_progress(self) -> None:
        table = self.query_one(ResultsTable)
        parts = [f"{table.row_count} measured"]
        run = self.run_info
        if run.get("total"):
            parts[0] = f"{table.row_count}/{run['total']} configurations"
        if run.get("started"):
            end = run.get("ended") or time.monotonic()
            parts.append(f"{end - run['started']:.0f} s elapsed")
        if self.best and self.best.get("time_ms") is not None:
            parts.append(f"best {self.best['time_ms']:.4f} ms ({self.best['key']})")
            if self.baseline_ms:
                parts.append(f"{self.baseline_ms / self.best['time_ms']:.2f}x over baseline {self.baseline_ms:.4f} ms")
        if self.current and self.state == "running":
            parts.append(f"running {self.current['key']}")
        self.query_one(ProgressLine).update("  ·  ".join(parts))

    # -- keys ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        choices = self.gate.choices if (self.gate and self.bridge.waiting) else ()
        if action == "start":
            return "approve" in choices or None
        if action == "skip":
            return "skip" in choices or None
        if action == "stop":
            return bool(choices) or self.state == "running" or None
        return True

    def _decide(self, choice: str) -> None:
        if self.bridge.answer(Decision(choice)):
            self.gate = None
            self.query_one(GatePanel).update(f"{choice}: going on…")
            self.refresh_bindings()

    def action_start(self) -> None:
        self._decide("approve")

    def action_skip(self) -> None:
        self._decide("skip")

    def action_stop(self) -> None:
        if self.bridge.waiting:
            self._decide("stop")
        elif self.engine is not None and self.state == "running":
            self.engine.request_stop()
            self.notify("Stopping after the current configuration.")

    def action_sort(self) -> None:
        table = self.query_one(ResultsTable)
        cols = table.sortable
        nxt = cols[(cols.index(table.sort_index) + 1) % len(cols)] if table.sort_index in cols else "time"
        table.sort_by(nxt, False)
        self.notify(f"sorted by {nxt.removeprefix('p:')}", timeout=2)

    def action_reverse(self) -> None:
        table = self.query_one(ResultsTable)
        table.sort_by(table.sort_index or "time", not table.sort_reverse)

    @on(DataTable.HeaderSelected)
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        table = self.query_one(ResultsTable)
        key = str(event.column_key.value)
        if key in table.sortable:
            table.sort_by(key, table.sort_index == key and not table.sort_reverse)

    def action_quit_session(self) -> None:
        self.shutdown()
        self.app.exit()

    def shutdown(self) -> None:
        self.bridge.close()
        if self.gpu is not None:
            self.gpu.shutdown()
