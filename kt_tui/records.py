"""The records every layer passes around: frozen, typed, built once where the data is born.

The GPU worker builds a `Result` per configuration; the store keeps and returns them, and everything
above reads attributes. `trusted()` is the one rule for which results may count, and `config_key()`
the one spelling of a configuration's key (kernel_tuner's cache key). This module imports nothing of
kt_tui, so the worker process, the store and the UI all use it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["Check", "Known", "Result", "Run", "StoredGate", "as_result", "config_key", "replace", "trusted"]

OK = "ok"


def config_key(names: Sequence[str], params: Mapping[str, Any]) -> str:
    """kernel_tuner's cache key: the values of `names` (tune_params order) joined by commas."""
    return ",".join(str(params[n]) for n in names)


@dataclass(frozen=True, slots=True)
class Result:
    """One configuration of one kernel version, measured (or recorded) once.

    verified is three-state: True (checked against the reference and right), False (wrong), None
    (nothing checked it). status: ok | wrong_result | compile_error | runtime_error | invalid |
    invalid_time | not_checked | timeout | skipped."""

    key: str
    params: Mapping[str, Any]
    status: str
    time_ms: float | None = None
    times: tuple[float, ...] | None = None
    error: str | None = None
    verified: bool | None = None
    max_abs_err: float | None = None
    first_bad: str | None = None
    compile_ms: float | None = None
    source: str | None = None  # measured | recorded | the backend's name
    timestamp: str | None = None
    verdicts: tuple[Mapping[str, Any], ...] | None = None
    # where it was stored and who measured it (the store fills these in)
    version: str | None = None
    run: str | None = None
    origin: str | None = None
    worker: str | None = None
    device: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == OK and self.time_ms is not None


_REQUIRED = ("key", "status")


def as_result(r: Result | Mapping[str, Any]) -> Result:
    """A result given as a record, or as a mapping of Result's field names (what a test's or a
    plug-in's GPU hands over); other names are left out, params defaults to none. KeyError without
    a key or a status."""
    if isinstance(r, Result):
        return r
    missing = [name for name in _REQUIRED if name not in r]
    if missing:
        raise KeyError(missing[0])
    names = Result.__dataclass_fields__
    return Result(**{"params": {}, **{k: v for k, v in r.items() if k in names}})


def trusted(r: Result, is_reference: bool = False) -> bool:
    """A result that may become best, be confirmed or pass a step: measured, ok, and verified True;
    the original kernel at its baseline configuration (whose outputs are the reference) counts
    when nothing checked it."""
    if not r.ok:
        return False
    return r.verified is True or (is_reference and r.verified is None)


@dataclass(frozen=True, slots=True)
class Known:
    """What a tuning job needs of a stored result so that it does not measure it again. params may
    still be the stored JSON text: the worker decodes only those a search asks for."""

    params: str | Mapping[str, Any]
    time_ms: float | None
    status: str


@dataclass(frozen=True, slots=True)
class Run:
    """One tuning or checking run of one version."""

    id: str
    version: str
    kind: str
    state: str
    strategy: str | None = None
    total: int | None = None
    cachefile: str | None = None
    device: str | None = None
    started: str | None = None
    ended: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Check:
    """One configuration checked at one other size (or strength probe) of one version."""

    version: str
    key: str
    label: str
    ok: bool | None
    status: str
    sizes: Mapping[str, Any] = field(default_factory=dict)
    reason: str | None = None
    verdicts: tuple[Mapping[str, Any], ...] | None = None
    source: str | None = None
    created: str | None = None


@dataclass(frozen=True, slots=True)
class StoredGate:
    """A gate as the store keeps it: opened with a body, then decided (state "decided")."""

    key: str
    kind: str
    title: str
    state: str
    seq: int = 0
    body: Mapping[str, Any] = field(default_factory=dict)
    decision: Mapping[str, Any] | None = None
    created: str | None = None
    decided: str | None = None
