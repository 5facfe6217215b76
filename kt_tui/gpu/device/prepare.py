"""Runs inside a device worker: a run's inputs, made once per spec and sizes and kept for the next
Load (on a PrepareJob, while the app still compile-checks the kernel, or at the first Load)."""

from __future__ import annotations

import json

import numpy as np

from ...kernel.inputs import make_args
from ...kernel.spec import Spec

_ARGS: dict[str, list] = {}  # generated inputs by spec args and sizes, KEEP_BYTES in all: later jobs copy them
KEEP_BYTES = 2 << 30  # inputs larger than this in all are made again for each job rather than kept


def job_args(spec: Spec, plain: dict) -> list:
    """The kernel's arguments for a job: the spec's inputs, generated once per spec (seconds for
    large arrays); every job gets them read-only: kernel_tuner copies them to the GPU and back into
    new arrays, and anything that tried to change them would fail loudly rather than hand the next
    job other inputs (copying 512 MB cost a quarter of a second before each job's first result). A
    replay makes none (device/session.py answers its Runs from the recorded cache)."""
    key = json.dumps([plain.get("args"), plain.get("sizes"), plain.get("base_dir")], sort_keys=True, default=str)
    if key not in _ARGS:
        args = make_args(spec)
        for a in args:
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
        if _bytes(args) > KEEP_BYTES:
            return args
        while _ARGS and _bytes(args) + sum(_bytes(kept) for kept in _ARGS.values()) > KEEP_BYTES:
            _ARGS.pop(next(iter(_ARGS)))  # the least recently used; a check's sizes leave the spec's
        _ARGS[key] = args
    _ARGS[key] = _ARGS.pop(key)
    return list(_ARGS[key])


def _bytes(args: list) -> int:
    return sum(a.nbytes for a in args if isinstance(a, np.ndarray))
