"""Turn a launch spec into the numpy arguments a kernel is called with (deterministic per seed)."""

from __future__ import annotations

import numpy as np

from .expr import evaluate
from .spec import Arg, Spec


def poison_value(dtype: np.dtype):
    return np.nan if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max


def make_arg(arg: Arg, sizes: dict[str, int]):
    dtype = np.dtype(arg.type)
    if not arg.is_array:
        return dtype.type(evaluate(arg.value, sizes))
    n = int(evaluate(arg.size, sizes))
    if arg.init == "zeros":
        return np.zeros(n, dtype)
    if arg.init == "ones":
        return np.ones(n, dtype)
    if arg.init == "range":
        return np.arange(n).astype(dtype)
    if arg.init == "constant":
        return np.full(n, arg.value, dtype)
    if arg.init == "poison":
        return np.full(n, poison_value(dtype), dtype)
    rng = np.random.default_rng(arg.seed)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100), n).astype(dtype)


def make_args(spec: Spec, sizes: dict | None = None) -> list:
    """The arguments at the spec's sizes, or at `sizes` (a check at another size)."""
    sizes = dict(sizes or spec.sizes)
    return [make_arg(a, sizes) for a in spec.args]
