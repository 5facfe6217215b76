"""Runs inside the GPU worker, the mutants' check child and the profile child: one kernel run and its
outputs by name (`run_kernel`: kernel_tuner's run_kernel through its DeviceInterface, the kernel
loaded from a binary compiled ahead where `loading` gives one); a spec's reference kernel run the
same way."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from itertools import product
from typing import Any

import numpy as np

from ..ktimport import load as _load_kernel_tuner

_load_kernel_tuner()  # before kernel_tuner's own imports: see gpu/ktimport.py
from kernel_tuner.core import DeviceInterface, KernelSource  # noqa: E402

from ...kernel import refkernel  # noqa: E402
from ...kernel.expr import launch_callables  # noqa: E402
from ...kernel.inputs import load_named, make_args  # noqa: E402
from ...kernel.spec import Spec  # noqa: E402
from ...kernel.text import instantiations_wrapped  # noqa: E402
from .. import kt_private as ktp  # noqa: E402
from ..ktsource import tuner_defines  # noqa: E402
from ..nvrtc import backend_options  # noqa: E402
from . import loaders  # noqa: E402
from .lang import by_value, cuda_lang, numpy_arguments  # noqa: E402

_LOADING: list[loaders.Ahead | loaders.Given | None] = []  # the binaries `run_kernel` loads (`loading`)
_KERNEL_OPTIONS = "lang smem_args cmem_args block_size_names defines grid_div_x grid_div_y grid_div_z".split()


@contextmanager
def loading(ahead: loaders.Ahead | loaders.Given | None) -> Iterator[None]:
    """Inside: each kernel `run_kernel` runs is loaded from `ahead`'s binary of its kernel string and
    compiler options where it has one, else compiled as kernel_tuner compiles it."""
    _LOADING.append(ahead)
    try:
        yield
    finally:
        _LOADING.pop()


def run_kernel(
    kernel_name: str, kernel_source: str, problem_size: Any, arguments: list, params: dict, **kw: Any
) -> list:
    """kernel_tuner's run_kernel for one CUDA kernel (its keyword arguments: _KERNEL_OPTIONS and
    compiler_options; its errors): every argument after one run, the arrays copied back."""
    source = KernelSource(kernel_name, kernel_source, kw["lang"], kw.get("defines"))
    options = ktp.kernel_options(
        kernel_name=kernel_name,
        kernel_source=source,
        problem_size=problem_size,
        arguments=arguments,
        texmem_args=None,
        **{k: kw.get(k) for k in _KERNEL_OPTIONS},
    )
    compiler_options = kw.get("compiler_options") or []
    dev = DeviceInterface(source, iterations=1, compiler_options=compiler_options, quiet=True)
    gpu_args = dev.ready_argument_list(arguments)
    instance = dev.create_kernel_instance(source, options, params, False)
    if isinstance(instance, ktp.ErrorConfig):
        raise RuntimeError("cannot create kernel instance, too many threads per block")
    try:
        ktp.check_argument_list(instance.name, instance.kernel_string, arguments, kw["lang"])
        ahead = _LOADING[-1] if _LOADING else None  # the innermost `loading`
        func = loaders.function(
            dev, instance, ahead.binary(compiler_options, instance.kernel_string) if ahead else None
        )
        if func is None:
            raise RuntimeError("cannot compile kernel, too much shared memory used")
        if options.smem_args is not None:
            dev.copy_shared_memory_args(ktp.get_smem_args(options.smem_args, params))
        if options.cmem_args is not None:
            dev.copy_constant_memory_args(options.cmem_args)
    finally:
        instance.delete_temp_files()
    if not dev.run_kernel(func, gpu_args, instance):
        raise RuntimeError("runtime error occurred, too many resources requested")
    out = [arg if np.isscalar(arg) else np.zeros_like(arg) for arg in arguments]
    for host, on_device in zip(out, gpu_args, strict=True):
        if isinstance(host, np.ndarray):
            dev.memcpy_dtoh(host, on_device)
    return out


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
        out = run_kernel(
            spec.kernel,
            instantiations_wrapped(source, spec.kernel),
            ps if len(ps) > 1 else ps[0],
            by_value(make_args(spec, sizes) if args is None else args, backend),
            dict(params),
            **launch_callables(spec),
            lang=lang,
            compiler_options=backend_options(backend, spec.compiler_options),
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
