"""The strategy contract: `StrategyContext` is everything a strategy may call on the engine.

A strategy is a callable `strategy(ctx)` returning a generator of gates; each `yield gate` gives
back the `Decision` that answered it (README: "Custom strategies"). The built-in strategies use
only what is listed here, so a plug-in can rely on exactly this and nothing else. The `Engine`
(engine/core.py) is the one implementation.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from ..kernel.spec import Spec
from .backend import BackendChoice
from .gates import Decision, Gate
from .verdict import Outcome

M = TypeVar("M", bound=BaseModel)
Gates = Generator[Gate, Decision, None]


class StrategyContext(Protocol):
    """What a strategy sees of the engine. Everything it learns or decides is stored through these
    calls, so a resumed session replays it: a strategy keeps no state of its own between runs."""

    original: str  # the user's kernel version: every step's reference
    best_ms: float | None  # the session's best trusted time so far
    error: str | None  # set when the session as a whole failed: it ends "failed" with this reason

    @property
    def choice(self) -> BackendChoice:
        """Where numbers come from: backend, GPU name, `label()` for titles."""
        ...

    @property
    def options(self) -> dict[str, Any]:
        """The session's strategy options (budget, search, the strategy's own knobs)."""
        ...

    @property
    def manual(self) -> bool:
        """No LLM: `ask` calls nothing, the user writes what it would have written."""
        ...

    # -- asking ---------------------------------------------------------------------------
    def ask(
        self,
        key: str,
        template: str,
        model_cls: type[M],
        without_llm: Callable[[], M | None] | None = None,
        **kw: Any,
    ) -> Generator[Gate, Decision, M | None]:
        """`value = yield from ctx.ask(...)`: the answer stored under `key` when there is one (a
        resumed session, with or without an LLM); in manual mode, `without_llm()` when given (what
        the strategy's next gate shows the user to write or edit; None: nothing); otherwise the
        LLM's answer, asked through gates that let the user retry, write it by hand or skip (None;
        in manual mode the user writes it there). `kw` goes to the prompt: `messages=` replaces the
        template's, `check=` lists a reply's problems, other names are the template's values."""
        ...

    def kept(self, key: str) -> tuple[Any, str] | None:
        """A value the strategy kept under `key` (with its text), or None."""
        ...

    def keep(self, key: str, value: Any, text: str, by: str) -> None:
        """Store a value of the strategy's own (a steps file it read, say) so resume uses it as it was."""
        ...

    # -- steps and events -----------------------------------------------------------------
    def steps(self) -> list[dict[str, Any]]:
        """The session's steps as stored: id, title, description, state, reason, version, parent."""
        ...

    def set_step(self, step_id: str, **fields: Any) -> None: ...

    def emit(self, name: str, keep: bool = True, **data: Any) -> None:
        """An event for the UI or the headless printer (`keep`: stored with the session)."""
        ...

    # -- versions and measuring -------------------------------------------------------------
    def version(self, vid: str) -> tuple[str, Spec]:
        """A version's source and spec."""
        ...

    def current_best(self) -> str: ...

    def known(self, vid: str) -> dict[str, Any]:
        """The version's results by configuration key."""
        ...

    def results(self, vid: str) -> list[Any]: ...

    def trusted(self, vid: str, r: Any) -> bool: ...

    def update_space(self, vid: str, spec: Spec) -> None: ...

    def start_check(self) -> None:
        """Start testing how strong the output check is (once per session; its state is said at
        the next gate and before anything is called verified)."""
        ...

    def baseline(self, vid: str) -> Any: ...

    def tune(
        self,
        vid: str,
        run_id: str,
        search: str | None = None,
        configs: list[dict[str, Any]] | None = None,
        labels: dict[str, str] | None = None,
        budget: dict[str, Any] | None = None,
        seeds: bool | list[dict[str, Any]] = True,
        counts_with: tuple[str, ...] = (),
    ) -> Outcome:
        """Tune a version (Runs.tune): budget["max_configs"] counts what this run (and the runs in
        `counts_with`) measured, across resumes; a stopped run goes on from where it stopped."""
        ...

    def confirm_best(self, vid: str, tries: int = 3) -> Any: ...

    # -- a generated kernel -----------------------------------------------------------------
    def prompt_context(self) -> dict[str, Any]:
        """The current best kernel and its numbers: the values every prompt template can use."""
        ...

    def run_rewrite(self, step_id: str, title: str, rewrite: Any, suggested: dict[str, Any] | None = None) -> Gates:
        """A rewritten kernel through its gates: parameters, review, compile, verify, tune, accept."""
        ...
