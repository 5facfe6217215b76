"""Both sides of the process wall: kernel_tuner's results as kt-tui's records (kt_tui/records.py), and
back. A `Result` is built here, where the measurement is born, and travels as it is (pickled) to
the app, the store and the UI."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from ..records import Known, Result, config_key
from .ktimport import SOURCE
from .ktimport import load as _load_kernel_tuner

_load_kernel_tuner(SOURCE)  # before kernel_tuner's own imports, and no GPU backend: see gpu/ktimport.py
from kernel_tuner import util  # noqa: E402

from ..compare import failure_text  # noqa: E402


def normalize_result(raw: Mapping[str, Any], names: list[str], source: str) -> Result:
    """A kernel_tuner result (or cache entry) as a record."""
    params = {n: raw[n] for n in names}
    status, error = _status(raw)
    t = raw.get("time")
    if status in ("ok", "wrong_result") and not _sane_time(t, raw.get("times")):
        status, error = "invalid_time", f"the measured time {t!r} ms is not a positive finite number"
    ok_time = isinstance(t, (int, float)) and status in ("ok", "wrong_result")
    verdicts = raw.get("kt_verdicts")
    return Result(
        key=config_key(names, params),
        params=params,
        status=status,
        time_ms=float(t) if ok_time and t is not None else None,
        times=tuple(float(x) for x in raw.get("times", [])) if ok_time else None,
        error=error,
        verified=None if (correct := raw.get("kt_correct")) is None else {1: True, 0: False}.get(correct),
        max_abs_err=raw.get("kt_max_abs_err"),
        first_bad=raw.get("kt_first_bad") or None,
        compile_ms=raw.get("compile_time"),
        source=source,
        timestamp=raw.get("timestamp"),
        verdicts=None if verdicts is None else tuple(verdicts),
    )


def _status(raw: Mapping[str, Any]) -> tuple[str, str | None]:
    """The result's status and error, from what our runner recorded or kernel_tuner's error object."""
    status, error, err = raw.get("kt_status"), raw.get("kt_error"), raw.get("__error__")
    if status is not None:
        return status, error
    if isinstance(err, util.CompilationFailedConfig):
        return "compile_error", error
    if isinstance(err, util.RuntimeFailedConfig):
        return "runtime_error", error
    if isinstance(err, util.InvalidConfig):
        return "invalid", error or "not a valid configuration (restrictions or launch limits)"
    if err is not None:
        return "runtime_error", error
    if raw.get("kt_correct") == 0:
        return "wrong_result", (
            error
            or failure_text(raw.get("kt_verdicts") or [])
            or (f"wrong result at {raw.get('kt_first_bad')} (max abs err {raw.get('kt_max_abs_err'):.3g})")
        )
    return "ok", error


def _sane_time(t: Any, times: Any) -> bool:
    """A time that can be compared: positive and finite (a cache may hold anything)."""

    def finite(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    return finite(t) and t > 0 and all(finite(x) and x >= 0 for x in times or [])


def classify_exception(e: BaseException) -> tuple[str, str]:
    text = f"{type(e).__name__}: {e}"
    stderr = getattr(e, "stderr", None)
    if stderr:
        text += "\n" + (stderr.decode(errors="replace") if isinstance(stderr, bytes) else str(stderr))
    return status_of(text), text[-4000:]


def status_of(text: str) -> str:
    """A failure's status by its text: a compiler's, or the run's."""
    low = text.lower()
    return "compile_error" if any(s in low for s in ("compil", "nvrtc", "ptxas", "nvcc")) else "runtime_error"


def as_kt_result(stored: Known | Result) -> dict[str, Any]:
    """A stored result as kernel_tuner's strategies see one: its parameters and time (1e20 and an
    error object when it did not run)."""
    params = stored.params  # JSON text when it comes from the store (Store.known_for_worker)
    r = dict(json.loads(params) if isinstance(params, str) else params)
    if stored.time_ms is not None and stored.status == "ok":
        r["time"] = stored.time_ms
    else:
        r["time"] = 1e20
        r["__error__"] = util.RuntimeFailedConfig()
    return r
