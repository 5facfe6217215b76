"""Results at other sizes, in the app: at each size of a CheckJob, the reference run once (the
original at its baseline configuration, or the spec's reference kernel) with its outputs captured,
then each configuration run once and compared with them on the device. Each is a tuning run of its
configurations (gpu/tunerun.py) on one device worker, untimed, under the runner's watchdog: a
kernel that hangs or crashes costs that configuration at that size, a lost CUDA context restarts
the worker."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from functools import partial
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..compare import failure_text, poisoned
from ..kernel import refkernel
from ..kernel.spec import Spec, spec_from_plain
from ..kernel.strengthen import case_spec
from ..records import config_key
from .devices import Control, Device, WorkerError
from .protocol import CheckJob, TuneJob
from .results import status_of
from .timeline import mark

_REFS: dict[
    str, dict
] = {}  # the reference's outputs by backend, kernel, spec at a size and params, for the next checks
_KEEP = 4


def unit(label: str, key: str) -> str:
    return f"{label}@{key}"


def entry(label: str, sizes: dict, key: str, status: str, reason: str = "", verdicts=None, error=None) -> dict:
    """One configuration at one size: ok is True, False, or None when it could not be checked."""
    ok = {"ok": True, "not_checked": None}.get(status, False)
    return {
        "unit": unit(label, key),
        "label": label,
        "sizes": sizes,
        "key": key,
        "ok": ok,
        "status": status,
        "reason": reason,
        "verdicts": verdicts or [],
        "error": error,
        "timestamp": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def unwritten(spec: Spec, refs: dict, partial: list[str]) -> str:
    """The first element a poisoned output of the original still holds the poison in ("out[340]"),
    for outputs the original writes in full at the spec's size."""
    for a in spec.outputs():
        if a.init != "poison" or a.name in partial or a.name not in refs:
            continue
        idx = np.flatnonzero(poisoned(refs[a.name]))
        if idx.size:
            return f"{a.name}[{int(idx[0])}]"
    return ""


def _first(text: str, most: int) -> str:
    lines = text.strip().splitlines()
    return lines[0][:most] if lines else ""


def _compared(at: Spec, params: dict) -> Spec:
    """`at` as a check runs `params` on it: their space, compared elementwise with what it is given."""
    space = {n: [v] for n, v in params.items()}
    return dataclasses.replace(
        at, tune_params=space, defaults=dict(params), reference=None, verify="elementwise", verify_reason=None
    )


def _ref_key(backend: str, source: str, derived: Spec, params: dict) -> str:
    """_REFS's key: per backend too (cupy compiles with -ftz=true, the others do not)."""
    return repr((backend, source, derived.to_dict(), sorted(params.items())))


class _Unstopped:
    """The session's Control as a check's runs read it: a stop or a pause ends the tuning, not the
    check under way; closing the session ends it too."""

    stop = paused = False

    def __init__(self, real: Control) -> None:
        self.real = real

    @property
    def closing(self) -> bool:
        return self.real.closing

    def held(self, device: Device) -> bool:
        return self.real.held(device)


def check(tuner: Any, worker: Device, job: CheckJob, on_event: Callable[[str, Any], None], timeout_s: float) -> dict:
    """Emits ("begin", {"key": unit, "params"}) before each run and ("check", entry) per
    configuration and size (a failed reference run too, its entry with reference=True)."""
    from .tunerun import tune  # here: kernel_tuner loads with the first run, not with the engine

    spec, ref_spec = spec_from_plain(job.spec), spec_from_plain(job.ref_spec)
    names = list(spec.tune_params)
    # the session's pool where it compiles for these options; one compiling for others is left alone (the worker compiles)
    pool_for = partial(tuner.compiling.pool_for, replace=False)
    view = SimpleNamespace(size=1, facts=tuner.facts, compile_pool=pool_for, control=_Unstopped(tuner.control))

    def run(label: str, tag: str, source: str, at: Spec, params: dict, refs=None) -> tuple[Any, Any, str]:
        """The Result of `params` at `at`, its outputs (without `refs`), or why the Load failed."""
        results: list = []
        captured: list = []

        def seen(kind: str, payload: Any) -> None:
            if kind == "result":
                results.append(payload)
            elif kind == "reference":
                captured.append(payload)
            elif kind == "begin":
                on_event("begin", {"key": unit(label, tag), "params": payload["params"]})

        one = TuneJob(
            f"{job.run_id}:{label}:{tag}", source, _compared(at, params).to_dict(), job.backend, configs=[params],
            reference=refs,
            capture_reference=refs is None, timed=False,
        )  # fmt: skip
        try:
            tune(view, [worker], one, seen, timeout_s)
        except WorkerError as e:
            return None, None, str(e) or type(e).__name__
        return (results[0] if results else None), (captured[0] if captured else None), ""

    def referenced(at: Spec, extra: dict | None) -> tuple[str, Spec, dict]:
        """The reference's run at `at`: (source, spec, params)."""
        if refkernel.is_kernel(at.reference):
            return (refkernel.source(at), *refkernel.run_spec(at, extra))
        return job.ref_source, at, job.ref_params

    def reference(label: str, at: Spec, extra: dict | None) -> tuple[dict | None, str, str]:
        """The reference's outputs at `at` (kept for the next checks), or its failure's status and text."""
        source, derived, params = referenced(at, extra)
        key = _ref_key(job.backend, source, derived, params)
        if key not in _REFS:
            r, refs, error = run(label, "reference", source, derived, params)
            if refs is None:
                return None, r.status if r else status_of(error), (r.error or "") if r else error
            while len(_REFS) >= _KEEP:
                _REFS.pop(next(iter(_REFS)))
            _REFS[key] = refs
        return _REFS[key], "", ""

    per_config = bool(job.result_params) and refkernel.is_kernel(ref_spec.reference)
    pool = pool_for(spec, job.backend)
    try:  # every kernel of the check queued on the session's pool at once, compiled as one batch where it can
        from .ktsource import kernel_string

        ahead = []
        for size in job.sizes if pool is not None else ():
            at, ref_at = case_spec(spec, size), case_spec(ref_spec, size)
            for c in job.configs:
                extra = {n: c[n] for n in job.result_params} if per_config else None
                ref = referenced(ref_at, extra)
                known = _ref_key(job.backend, *ref) in _REFS  # a reference known from an earlier check is not run again
                for source, s, p in ([] if known else [ref]) + [(job.source, at, c)]:
                    ahead.append(
                        (unit(size["label"], config_key(names, c)), *kernel_string(_compared(s, p), source, p))
                    )
        if ahead:
            pool.ahead(ahead)
    except Exception as e:  # noqa: BLE001 - then each run asks for its own, and says why it has none
        mark(f"main: check {job.run_id} not compiled ahead: {type(e).__name__}: {e}"[:300])
    for size in job.sizes:
        label, sizes = size["label"], size["sizes"]
        at, ref_at = case_spec(spec, size), case_spec(ref_spec, size)
        base = None if per_config else reference(label, ref_at, None)
        if base and base[0] is None:
            said = f"fails there ({base[1]}: {_first(base[2], 200)})"
            on_event("check", dict(entry(label, sizes, "reference", base[1], said, error=base[2]), reference=True))
        for c in job.configs:
            key = config_key(names, c)
            refs, status, text = base or reference(label, ref_at, {n: c[n] for n in job.result_params})
            if refs is None and base:
                why = f"not checked at {label}: the original kernel fails there ({status}: {_first(text, 200)})"
                on_event("check", entry(label, sizes, key, "not_checked", why))
                continue
            if refs is None:
                why = f"not checked at {label}: the reference kernel fails there ({status})"
                on_event("check", entry(label, sizes, key, "not_checked", why, error=text))
                continue
            if hole := unwritten(ref_at, refs, job.partial):  # the original does not support this size
                why = f"not checked at {label}: the original kernel leaves {hole} unwritten there"
                on_event("check", entry(label, sizes, key, "not_checked", why))
                continue
            r, _, error = run(label, key, job.source, at, c, refs)
            if r is not None and r.verdicts is not None:
                bad = failure_text(r.verdicts, label)
                on_event("check", entry(label, sizes, key, "wrong_result" if bad else "ok", bad, list(r.verdicts)))
            elif r is not None or error:
                status, text = (r.status, r.error or "") if r is not None else (status_of(error), error)
                said = f"{status} at {label}: {_first(text, 300)}"
                on_event("check", entry(label, sizes, key, status, said, error=text))
    return {}
