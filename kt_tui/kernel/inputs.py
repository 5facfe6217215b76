"""Turn a launch spec into the numpy arguments a kernel is called with (deterministic per seed)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .expr import evaluate
from .spec import Arg, Spec, SpecError, function_file, random_bounds


def poison_value(dtype: np.dtype[Any]) -> float | int:
    return np.nan if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).max


def load_array(spec: Spec, file: str, name: str, where: str, read_only: bool = False) -> np.ndarray:
    """An array from a .npy, or the array `name` of a .npz, relative to the spec's folder. A .npy
    read only is mapped from the disk, not read into memory."""
    path = spec.file_path(file)
    try:
        if path.suffix == ".npy":
            array: np.ndarray = np.load(path, mmap_mode="r" if read_only else None, allow_pickle=False)
            return array.reshape(-1)
        with np.load(path, allow_pickle=False) as data:
            return np.asarray(data[name]).reshape(-1)
    except KeyError:
        raise SpecError(where, f"{path.name} holds no array named {name!r}") from None
    except (OSError, ValueError) as e:
        raise SpecError(where, f"cannot read {path}: {e}") from None


def make_arg(arg: Arg, sizes: dict[str, int], spec: Spec | None = None, done: dict[str, Any] | None = None) -> Any:
    dtype = np.dtype(arg.dtype)
    if not arg.is_array:
        return dtype.type(evaluate(arg.value, sizes))
    if arg.init == "file":
        assert spec is not None and arg.file is not None
        return load_array(spec, arg.file, arg.name, f"args ({arg.name}).file", not arg.output).astype(dtype, copy=False)
    if arg.init == "copy":
        assert done is not None and arg.copy_of is not None
        return np.array(done[arg.copy_of], dtype)
    if arg.init == "function":
        assert spec is not None and arg.function is not None
        return np.asarray(user_function(spec, arg.function)(dict(sizes)), dtype).reshape(-1)
    n = int(evaluate(arg.size, sizes)) * arg.lanes
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
    floating = np.issubdtype(dtype, np.floating)
    if arg.init == "normal" and floating:
        return rng.standard_normal(n).astype(dtype)
    low, high = random_bounds(arg, sizes)
    if floating and (arg.init in ("uniform", "positive") or arg.low is not None or arg.high is not None):
        return rng.uniform(low, high, n).astype(dtype)
    if floating:
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(low, high, n).astype(dtype)


GENERATED = ("random", "normal", "uniform", "positive")  # made by numpy, which lets go of the GIL meanwhile


def make_args(spec: Spec, sizes: dict[str, int] | None = None) -> list[Any]:
    """The arguments at the spec's sizes, or at `sizes` (a check at another size). Random arrays
    are made on threads at once, each from its own seed, so the values do not depend on it."""
    sizes = dict(sizes or spec.sizes)
    done: dict[str, Any] = {}
    out: list[Any] = [None] * len(spec.args)
    generated = [i for i, a in enumerate(spec.args) if a.is_array and a.init in GENERATED]
    if len(generated) > 1:
        with ThreadPoolExecutor(min(len(generated), 8)) as pool:
            for i, value in zip(generated, pool.map(lambda i: make_arg(spec.args[i], sizes, spec), generated)):
                out[i] = done[spec.args[i].name] = value
    order = sorted(range(len(spec.args)), key=lambda i: spec.args[i].init == "copy")
    for i in order:
        if i not in generated or len(generated) < 2:
            out[i] = done[spec.args[i].name] = make_arg(spec.args[i], sizes, spec, done)
    return out


def user_function(spec: Spec, ref: str) -> Callable[..., Any]:
    """The user's `module:function` from a .py file next to the spec. Only the GPU worker and its
    child processes call this: the TUI process never imports the user's Python."""
    path = function_file(spec, ref)
    loader = importlib.util.spec_from_file_location(f"kt_user_{path.stem}", path)
    if loader is None or loader.loader is None:
        raise SpecError(ref, f"cannot import {path}")
    module = importlib.util.module_from_spec(loader)
    loader.loader.exec_module(module)
    func: Callable[..., Any] = getattr(module, ref.partition(":")[2])
    return func


def reference_outputs(spec: Spec, args: list[Any]) -> dict[str, Any] | None:
    """The spec's expected outputs: from a .npz, or from `module:function` given the inputs by name."""
    ref = spec.reference
    if not isinstance(ref, str) or not ref:
        return None  # none, or a reference kernel (gpu/worker runs it)
    if ref.endswith(".npz"):
        return load_named(spec, ref, "reference")
    inputs = {a.name: np.copy(v) for a, v in zip(spec.args, args)}
    out = user_function(spec, ref)(inputs, dict(spec.sizes))
    return {k: np.asarray(v).reshape(-1) for k, v in dict(out).items()}


def load_named(spec: Spec, file: str | None, where: str) -> dict[str, Any] | None:
    """All arrays of a .npz (cmem_args, reference) by name."""
    if not file:
        return None
    path = spec.file_path(file)
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: np.asarray(data[k]) for k in data.files}
    except (OSError, ValueError) as e:
        raise SpecError(where, f"cannot read {path}: {e}") from None
