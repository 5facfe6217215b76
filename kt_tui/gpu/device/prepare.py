"""Runs inside the GPU worker: a job's head start. Its inputs, made once per spec and copied for
each job, and the compiles of its first configurations, started before kernel_tuner has a backend
(on a PrepareJob, while the app still compile-checks the kernel, or while the inputs are made)."""

from __future__ import annotations

import json

import numpy as np

from ...kernel.inputs import make_arg, make_args
from ...kernel.spec import Spec
from ...records import config_key
from ..protocol import TuneJob
from .prefetch import Early, enabled
from .sharedpool import depth

_ARGS: dict[str, list] = {}  # the last spec's generated inputs, by its args and sizes: later jobs copy them
KEEP_BYTES = 2 << 30  # inputs larger than this in all are made again for each job rather than kept


def job_args(spec: Spec, plain: dict, simulated: bool) -> list:
    """The kernel's arguments for a job. A replay runs nothing: kernel_tuner only checks the types
    against the signature, so each array is a one-element stand-in of its dtype. On a GPU, the
    spec's inputs are generated once per spec (seconds for large arrays) and every job gets them
    read-only: kernel_tuner copies them to the GPU and back into new arrays, and anything that
    tried to change them would fail loudly rather than hand the next job other inputs (copying
    512 MB cost a quarter of a second before each job's first result)."""
    if simulated:
        return [
            np.zeros(1, np.dtype(a.dtype)) if a.is_array else make_arg(a, dict(spec.sizes), spec) for a in spec.args
        ]
    key = json.dumps([plain.get("args"), plain.get("sizes"), plain.get("base_dir")], sort_keys=True, default=str)
    if key not in _ARGS:
        _ARGS.clear()
        args = make_args(spec)
        for a in args:
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
        if sum(a.nbytes for a in args if isinstance(a, np.ndarray)) > KEEP_BYTES:
            return args
        _ARGS[key] = args
    return list(_ARGS[key])


_PREPARED: dict[str, Early] = {}  # backend -> the baseline's compile a PrepareJob started, for the next job


def prepare_early(spec: Spec, source: str, backend: str) -> None:
    """While the app still compile-checks the kernel: start compiling its baseline for the first job."""
    for early in _PREPARED.values():
        early.close()
    _PREPARED.clear()
    if source and enabled():
        started = Early.start(backend, spec, source, [spec.baseline_params()])
        if started is not None:
            _PREPARED[backend] = started


def early_for(job: TuneJob, spec: Spec, names: list[str]) -> Early | None:
    """Start compiling the job's listed configurations (the baseline, seeds) while its inputs are
    made, on the compiles a PrepareJob started where there are some."""
    prepared = _PREPARED.pop(job.backend, None)
    for other in _PREPARED.values():
        other.close()
    _PREPARED.clear()
    if not enabled():
        return None
    listed = [c for c in [*(job.seeds or []), *(job.configs or [])] if config_key(names, c) not in job.known]
    firsts = list({config_key(names, c): {n: c[n] for n in names} for c in listed}.values())[: depth()]
    if prepared is None:
        return Early.start(job.backend, spec, job.source, firsts)
    try:
        prepared.add(spec, job.source, firsts)
    except Exception as e:  # noqa: BLE001 - what was compiled is still used; the rest compiles as usual
        print(f"kt-tui: no early compile: {type(e).__name__}: {e}", flush=True)
    return prepared
