"""Runs inside the GPU worker: results at other sizes. For each extra size, the original kernel at
its baseline configuration gives the reference, then each candidate configuration runs once
(outputs.run_kernel) and its outputs are compared with it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...compare import compare_all, failure_text, poisoned
from ...kernel import refkernel
from ...kernel.spec import Spec, spec_from_plain
from ...kernel.strengthen import case_spec
from ...records import config_key
from ..checkentry import entry, lost_entry, unit  # noqa: F401 - the check's entries, said there
from ..protocol import CheckJob
from .loaders import Given
from .outputs import loading, reference_kernel_outputs, run_outputs

# Imported where used: kernel_tuner (ktsource imports it), as late as the job that needs it.

_REFS: dict[str, dict] = {}  # reference outputs by (kernel, sizes), kept for the next jobs
_KEEP = 4


def run_check_job(job: CheckJob, emit: Callable) -> dict:
    """Emits a "check" entry per configuration and size. Raises ContextLost when the GPU is wedged.
    Each kernel is loaded from the binary the session's compile pool made of it (job.binaries)."""
    with loading(Given(job.binaries)):
        return _check(job, emit)


def _ref_key(job: CheckJob, size: dict) -> str:
    changes = sorted((size.get("args") or {}).items())
    return repr((job.ref_source, job.ref_spec, sorted(job.ref_params.items()), sorted(size["sizes"].items()), changes))


def _at(spec: Spec, size: dict) -> Spec:
    """The spec at a check's size, with the argument values of a stronger case the check kept."""
    return case_spec(spec, size) if size.get("args") else spec


def _check(job: CheckJob, emit: Callable) -> dict:
    from ..results import classify_exception
    from .session import STICKY, ContextLost, inject_fault

    spec, ref_spec = spec_from_plain(job.spec), spec_from_plain(job.ref_spec)
    names = list(spec.tune_params)
    tol = {a.name: a.tolerance() for a in spec.outputs()}

    def attempt(u: str, params: dict, run):
        emit("begin", {"key": u, "params": params})
        inject_fault(u)
        try:
            return run(), None
        except Exception as e:  # noqa: BLE001 - one failure is this unit's verdict
            status, text = classify_exception(e)
            return None, (status, text, any(s in text.lower() for s in STICKY))

    base, base_ref = spec, ref_spec
    for size in job.sizes:
        label, sizes = size["label"], size["sizes"]
        todo = [c for c in job.configs if unit(label, config_key(names, c)) not in job.done]
        if not todo:
            continue
        spec, ref_spec = _at(base, size), _at(base_ref, size)
        ref_unit = unit(label, "reference")
        failed: dict | None = job.done.get(ref_unit)
        refs = None
        if failed is None:
            cache_key = _ref_key(job, size)
            refs = _REFS.get(cache_key)
            if refs is None:
                refs, err = attempt(
                    ref_unit,
                    job.ref_params,
                    lambda: (
                        reference_kernel_outputs(ref_spec, sizes, job.backend)
                        if refkernel.is_kernel(ref_spec.reference)
                        else run_outputs(ref_spec, job.ref_source, job.ref_params, sizes, job.backend)
                    ),
                )
                if err:
                    first = err[1].strip().splitlines()
                    failed = dict(
                        entry(
                            label,
                            sizes,
                            "reference",
                            err[0],
                            f"fails there ({err[0]}: {first[0][:200] if first else '?'})",
                            error=err[1],
                        ),
                        reference=True,
                    )
                    emit("check", failed)
                    if err[2]:
                        raise ContextLost(err[1])
                else:
                    while len(_REFS) >= _KEEP:
                        _REFS.pop(next(iter(_REFS)))
                    _REFS[cache_key] = refs
            hole = refs and unwritten(ref_spec, refs, job.partial)
            if hole:  # the original does not support this size: nothing to compare with
                refs, failed = None, entry(label, sizes, "reference", "not_checked", f"leaves {hole} unwritten there")
        for c in todo:
            key = config_key(names, c)
            if refs is None:
                assert failed is not None  # no reference outputs only where the reference failed
                emit(
                    "check",
                    entry(
                        label,
                        sizes,
                        key,
                        "not_checked",
                        f"not checked at {label}: the original kernel {failed['reason']}",
                    ),
                )
                continue
            outs, err = attempt(unit(label, key), c, lambda: run_outputs(spec, job.source, c, sizes, job.backend))
            if err:
                first = err[1].strip().splitlines()
                emit(
                    "check",
                    entry(
                        label,
                        sizes,
                        key,
                        err[0],
                        f"{err[0]} at {label}: {first[0][:300] if first else ''}",
                        error=err[1],
                    ),
                )
                if err[2]:
                    raise ContextLost(err[1])
                continue
            expected = refs
            if job.result_params and refkernel.is_kernel(ref_spec.reference):  # this configuration's reference
                expected, err = attempt(
                    ref_unit,
                    c,
                    lambda: reference_kernel_outputs(
                        ref_spec, sizes, job.backend, {n: c[n] for n in job.result_params}
                    ),
                )
                if err:
                    emit(
                        "check",
                        entry(
                            label,
                            sizes,
                            key,
                            "not_checked",
                            f"not checked at {label}: the reference kernel fails there ({err[0]})",
                            error=err[1],
                        ),
                    )
                    continue
            verdicts = compare_all(expected, outs, tol)
            bad = failure_text(verdicts, label)
            emit("check", entry(label, sizes, key, "wrong_result" if bad else "ok", bad, verdicts))
    return {}


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
