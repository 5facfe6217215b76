"""What the engine says: one dataclass per event kind. `Engine.emit(name, **data)` stores the plain
data (as older versions did) and hands listeners the typed event from `event_from`.
Gates and decisions live in engine/gates.py (re-exported here for older imports)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from .. import records
from .gates import CHOICES, Decision, Gate  # noqa: F401 - the names older code imports from here

EVENTS: dict[str, type[Event]] = {}


@dataclass(kw_only=True)
class Event:
    kind: ClassVar[str] = ""
    extra: dict[str, Any] = field(default_factory=dict)  # data this version does not know

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if isinstance(cls.__dict__.get("kind"), str) and cls.kind:
            EVENTS[cls.kind] = cls

    @property
    def data(self) -> dict[str, Any]:
        """The event as plain data: its fields that are set, then the unknown ones."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        return {**{k: v for k, v in out.items() if v is not None}, **self.extra}


@dataclass(kw_only=True)
class SessionChanged(Event):
    """The session's state, best or baseline changed (only what changed is set)."""

    kind: ClassVar[str] = "session"
    state: str | None = None
    error: str | None = None
    best_ms: float | None = None
    best_key: str | None = None
    best_version: str | None = None
    baseline_ms: float | None = None
    check_state: dict[str, Any] | None = None  # the check's strength (engine/strength.py), when it was tested


@dataclass(kw_only=True)
class GateAsked(Event):
    kind: ClassVar[str] = "gate"
    gate: dict[str, Any]


@dataclass(kw_only=True)
class Decided(Event):
    kind: ClassVar[str] = "decided"
    key: str
    decision: dict[str, Any]


@dataclass(kw_only=True)
class SpaceChanged(Event):
    kind: ClassVar[str] = "space_changed"
    version: str
    tune_params: dict[str, Any]


@dataclass(kw_only=True)
class StepChanged(Event):
    """A plan step's fields changed (only those given are set)."""

    kind: ClassVar[str] = "step"
    id: str
    title: str | None = None
    description: str | None = None
    state: str | None = None
    reason: str | None = None
    version: str | None = None
    parent: str | None = None


@dataclass(kw_only=True)
class Paused(Event):
    kind: ClassVar[str] = "paused"
    on: bool


@dataclass(kw_only=True)
class RunStarted(Event):
    kind: ClassVar[str] = "run"
    run: str
    version: str
    total: int | None = None
    backend: str | None = None
    run_kind: str | None = None  # "kind" in the stored data
    budget: int | None = None  # --max-configs for this run, counted across resumes (Runs.tune)
    known: int | None = None  # configurations of its space measured before it: they count as done
    again: int | None = None  # of those, measured by this very run before a resume (its budget counts them)

    @property
    def data(self) -> dict[str, Any]:
        out = super().data
        if "run_kind" in out:
            out["kind"] = out.pop("run_kind")
        return out


@dataclass(kw_only=True)
class SpaceCounted(Event):
    """A run's space counted after restrictions."""

    kind: ClassVar[str] = "space"
    run: str
    total: int


@dataclass(kw_only=True)
class Begin(Event):
    """A configuration starts to run."""

    kind: ClassVar[str] = "begin"
    run: str | None = None
    key: str | None = None
    params: dict[str, Any] | None = None


@dataclass(kw_only=True)
class Sanitized(Event):
    kind: ClassVar[str] = "sanitize"
    tool: str
    ok: bool | None = None
    errors: int | None = None
    text: str = ""
    reason: str = ""
    sizes: dict[str, Any] | None = None
    params: dict[str, Any] | None = None
    command: list[Any] | None = None
    seconds: float | None = None


@dataclass(kw_only=True)
class Profiled(Event):
    """A result's Nsight Compute profile was stored (engine/profiles.py)."""

    kind: ClassVar[str] = "profile"
    version: str
    key: str
    state: str
    line: str = ""
    seconds: float | None = None


@dataclass(kw_only=True)
class RunEnded(Event):
    kind: ClassVar[str] = "run_end"
    run: str
    state: str
    error: str | None = None


@dataclass(kw_only=True)
class Result(Event):
    kind: ClassVar[str] = "result"
    result: records.Result
    run: str | None = None
    version: str | None = None
    best: bool = False

    def __post_init__(self) -> None:
        self.result = records.as_result(self.result)  # a listener always gets a record


@dataclass(kw_only=True)
class Switched(Event):
    kind: ClassVar[str] = "switched"
    strategy: str


@dataclass(kw_only=True)
class Note(Event):
    kind: ClassVar[str] = "note"
    text: str


@dataclass(kw_only=True)
class Finished(Event):
    kind: ClassVar[str] = "finished"
    state: str
    error: str | None = None


@dataclass(kw_only=True)
class LlmStart(Event):
    kind: ClassVar[str] = "llm_start"
    key: str
    purpose: str = ""


@dataclass(kw_only=True)
class LlmDelta(Event):
    kind: ClassVar[str] = "llm_delta"
    key: str
    text: str


@dataclass(kw_only=True)
class LlmDone(Event):
    kind: ClassVar[str] = "llm_done"
    key: str
    repairs: int | None = None


@dataclass(kw_only=True)
class Compiled(Event):
    kind: ClassVar[str] = "compiled"
    step: str
    ok: bool | None = None
    errors: str = ""
    arch: str | None = None


@dataclass(kw_only=True)
class Verification(Event):
    """A step's kernel failed verification: why, where, and each output's errors."""

    kind: ClassVar[str] = "verification"
    reason: str
    step: str | None = None
    version: str | None = None
    where: str | None = None
    verdicts: list[Any] = field(default_factory=list)


@dataclass(kw_only=True)
class Checked(Event):
    """A configuration checked at another size."""

    kind: ClassVar[str] = "check"
    version: str
    key: str
    label: str
    status: str
    reason: str = ""


@dataclass(kw_only=True)
class UnknownEvent(Event):
    """An event of a name no class here has (a plug-in's, or a newer version's)."""

    name: str = ""
    kind = property(lambda self: self.name)  # type: ignore[assignment]

    @property
    def data(self) -> dict[str, Any]:
        return dict(self.extra)


_RENAMED: dict[type[Event], dict[str, str]] = {RunStarted: {"kind": "run_kind"}}


def event_from(name: str, data: dict[str, Any]) -> Event:
    """The typed event for `name` and its plain data; data it does not know is kept in `extra`."""
    cls = EVENTS.get(name)
    if cls is None:
        return UnknownEvent(name=name, extra=dict(data))
    renamed = _RENAMED.get(cls, {})
    data = {renamed.get(k, k): v for k, v in data.items()}
    names = {f.name for f in fields(cls)} - {"extra"}
    return cls(extra={k: v for k, v in data.items() if k not in names}, **{k: v for k, v in data.items() if k in names})
