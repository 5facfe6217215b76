"""A check's entries (one configuration at one other size), as the device worker reports them
(gpu/device/checking.py) and as the app records one whose run hung or crashed."""

from __future__ import annotations

import time
from typing import Any

from ..kernel import refkernel
from ..kernel.spec import spec_from_plain
from ..records import config_key
from .protocol import CheckJob


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


def lost_entry(job: CheckJob, u: str, status: str, why: str) -> dict:
    """The entry for a unit whose run hung or took the worker down (the app's watchdog saw it)."""
    label, _, key = u.rpartition("@")
    sizes: dict = next((s["sizes"] for s in job.sizes if s["label"] == label), {})
    if key == "reference":
        return dict(entry(label, sizes, key, status, f"fails there ({status}: {why})", error=why), reference=True)
    return entry(label, sizes, key, status, f"{status} at {label}: {why}", error=why)


def check_runs(job: CheckJob) -> list[tuple[Any, str, dict, dict | None]]:
    """(spec, source, params, sizes) of every kernel the check will run: at each size where a
    configuration is left to check, the original (unless the spec's reference is a kernel, or its
    run there is done) and those configurations."""
    spec, ref = spec_from_plain(job.spec), spec_from_plain(job.ref_spec)
    names, runs = list(spec.tune_params), []
    for size in job.sizes:
        todo = [c for c in job.configs if unit(size["label"], config_key(names, c)) not in job.done]
        if todo and not refkernel.is_kernel(ref.reference) and unit(size["label"], "reference") not in job.done:
            runs.append((ref, job.ref_source, job.ref_params, size["sizes"]))
        runs += [(spec, job.source, c, size["sizes"]) for c in todo]
    return runs
