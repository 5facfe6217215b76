"""Runs inside the GPU worker: one kernel run (kernel_tuner.run_kernel) and its outputs by name; a
spec's reference kernel run the same way."""

from __future__ import annotations

from itertools import product
from typing import Any

import numpy as np

from ..ktimport import load as _load_kernel_tuner

_load_kernel_tuner()  # before kernel_tuner's own imports: see gpu/ktimport.py
import kernel_tuner  # noqa: E402 - a module, so that tests can replace run_kernel

from ...kernel import refkernel
from ...kernel.expr import launch_callables
from ...kernel.inputs import load_named, make_args
from ...kernel.spec import Spec
from ...kernel.text import compile_options, instantiations_wrapped
from ..ktsource import tuner_defines
from .lang import by_value, cuda_lang, numpy_arguments


def run_outputs(spec: Spec, source: str, params: dict, sizes: dict | None, backend: str) -> dict[str, np.ndarray]:
    """Run `source` once at `sizes` (None: the spec's) with `params`; its output arrays by name."""
    arrays = run_arrays(spec, source, params, sizes, backend)
    return {a.name: arrays[a.name] for a in spec.args if a.output}


def run_arrays(
    spec: Spec, source: str, params: dict, sizes: dict | None, backend: str, args: list | None = None
) -> dict[str, np.ndarray]:
    """Run `source` once (on `args`, else the spec's inputs at `sizes`); every array argument after it ran."""
    sizes = sizes or spec.sizes
    ps = spec.problem_size_values(sizes, params)
    defines = tuner_defines(spec, sizes)
    extra: dict[str, Any] = {"defines": defines} if defines is not None else {}
    if spec.cmem_args:
        extra["cmem_args"] = load_named(spec, spec.cmem_args, "cmem_args")
    if spec.smem_size is not None:
        extra["smem_args"] = {"size": spec.smem_function(sizes)}
    with cuda_lang(backend) as lang, numpy_arguments(backend):
        out = kernel_tuner.run_kernel(
            spec.kernel,
            instantiations_wrapped(source, spec.kernel),
            ps if len(ps) > 1 else ps[0],
            by_value(make_args(spec, sizes) if args is None else args, backend),
            dict(params),
            **launch_callables(spec),
            lang=lang,
            compiler_options=compile_options(spec.compiler_options),
            block_size_names=list(spec.block_size_names) if spec.block_size_names else None,
            quiet=True,
            **extra,
        )
    return {a.name: np.asarray(out[i]) for i, a in enumerate(spec.args) if a.is_array}


def reference_kernel_outputs(
    spec: Spec, sizes: dict | None, backend: str, extra: dict | None = None
) -> dict[str, np.ndarray]:
    """The expected outputs: the spec's [reference] kernel run once at its own configuration (with
    `extra`: a configuration's values of the parameters that change the outputs)."""
    derived, params = refkernel.run_spec(spec, extra)
    return run_outputs(derived, refkernel.source(spec), params, sizes, backend)


def references_by_config(
    spec: Spec, tune_params: dict, names: list[str], sizes: dict | None, backend: str
) -> dict[tuple, dict]:
    """The reference kernel's outputs for every combination of `names`' values (the tuned
    parameters that change the outputs), keyed by their values in that order."""
    return {
        combo: reference_kernel_outputs(spec, sizes, backend, dict(zip(names, combo)))
        for combo in product(*(tune_params[n] for n in names))
    }
