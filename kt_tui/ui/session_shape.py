"""What the session screen's mixins (session_actions.py, session_stored.py) may use of the screen:
its state and the methods one part calls on another. Read by mypy only; SessionScreen defines them."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import RichLog

from ..config import Settings
from ..engine.backend import BackendChoice
from ..engine.core import Engine
from ..engine.gates import Decision, Gate
from ..records import Result
from ..store import SessionStore, Store
from .bridge import Bridge, GateOpened
from .widgets import ResultsTable


class SessionShape(Screen[None]):
    settings: Settings
    store: Store
    sid: str | None
    bridge: Bridge
    engine: Engine | None
    gpu: Any  # the GPU worker or pool, as services.make_worker made it (the ui never imports gpu/)
    gate: Gate | None
    choice: BackendChoice | None
    state: str
    run_info: dict[str, Any]
    baseline_ms: float | None
    best: tuple[str, float | None] | None
    autopilot: bool
    paused: bool
    stopping: bool
    problem: str | None
    strategy: str
    steps: list[dict[str, Any]]
    plotted: dict[tuple[str | None, str], int]
    unplotted: list[tuple[Result, str | None]] | None
    show_original: bool
    held: tuple[Gate, Decision, Timer] | None
    table: ResultsTable
    current: dict[str, Any] | None
    results_added: bool

    @property
    def data(self) -> SessionStore:
        raise NotImplementedError

    @property
    def keys(self) -> dict[str, str]:
        raise NotImplementedError

    @property
    def llm_log(self) -> RichLog:
        raise NotImplementedError  # StoredView has it

    def _banner(self) -> None: ...
    def show_profile(self) -> None: ...
    def _engine_thread(self) -> Any: ...  # a textual worker
    def _show_progress(self) -> None: ...
    def _show_source(self) -> None: ...
    def _add_versions(self, vid: str | None = None) -> None: ...
    def _best_version(self, vid: str | None) -> None: ...
    def _plot(self, r: Result, vid: str | None) -> None: ...
    def _running_text(self) -> Text:
        raise NotImplementedError  # SessionActions has it

    def _pause_clock(self, on: bool) -> None: ...
    def _decide(self, choice: str, value: Any = None, by: str = "user", why: str | None = None) -> None: ...
    def on_gate_opened(self, message: GateOpened) -> None: ...
