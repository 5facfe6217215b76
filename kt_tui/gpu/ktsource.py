"""The source kernel_tuner compiles for one configuration, made by kernel_tuner's own functions
(block and grid sizes, `#define`s, `loop_unroll_factor_*` as constexpr, template wrappers), so the
offline compile check, the GPU run and the checks at other sizes all compile the same string."""

from __future__ import annotations

import warnings

from .ktimport import SOURCE
from .ktimport import load as _load_kernel_tuner

_load_kernel_tuner(SOURCE)  # before kernel_tuner's own imports, and no GPU backend: see gpu/ktimport.py
from kernel_tuner import util
from kernel_tuner.core import KernelSource, wrap_templated_kernel

from ..kernel.expr import launch_callables
from ..kernel.spec import Spec, SpecError
from ..kernel.text import instantiations_wrapped, kernel_text

GRID_NAMES = ("grid_size_x", "grid_size_y", "grid_size_z")


def block_names(spec: Spec) -> list[str]:
    """The three block size names kernel_tuner's tune_kernel settles on (its own functions)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        names = util.check_block_size_params_names_list(
            list(spec.block_size_names) if spec.block_size_names else None, spec.tune_params
        )
    names = list(names) if names is not None else None
    util.append_default_block_size_names(names)
    return names or list(util.default_block_size_names)


def problem_size(spec: Spec, sizes: dict | None = None):
    """kernel_tuner's problem_size argument: numbers, or a function of the configuration."""
    if spec.tuned_problem_size():

        def per_config(params: dict):
            values = spec.problem_size_values(sizes, params)
            return tuple(values) if len(values) > 1 else values[0]

        return per_config
    values = spec.problem_size_values(sizes)
    return tuple(values) if len(values) > 1 else values[0]


def launch(spec: Spec, params: dict, sizes: dict | None = None) -> tuple[tuple, tuple]:
    """(threads, grid) of this configuration, as kernel_tuner computes them."""
    divs = launch_callables(spec)
    grid_div = (divs["grid_div_x"], divs["grid_div_y"], divs["grid_div_z"])
    return util.setup_block_and_grid(problem_size(spec, sizes), grid_div, params, block_names(spec))


def tuner_defines(spec: Spec, sizes: dict | None = None) -> dict | None:
    """kernel_tuner's `defines` argument. None without [defines]: kernel_tuner then defines the grid
    and block sizes, every tuned parameter and kernel_tuner=1. With [defines], kernel_tuner would
    define those alone; kt-tui adds them to its own ones, unless `defines_only` (what a kernel_tuner
    script's `defines=` means)."""
    mine = spec.define_values(sizes) if spec.defines else None
    if spec.defines_only:
        return dict(mine or {})
    if mine is None:
        return None
    out: dict = {}
    for i, name in enumerate(GRID_NAMES):
        out[name] = lambda p, i=i: launch(spec, p, sizes)[1][i]
    for i, name in enumerate(block_names(spec)):
        out[name] = lambda p, i=i: launch(spec, p, sizes)[0][i]
    for name in spec.tune_params:
        out[name] = lambda p, name=name: p[name]
    out["kernel_tuner"] = 1
    out.update(mine)
    return out


def kernel_string(
    spec: Spec, source: str, params: dict, sizes: dict | None = None, lang: str = "CUDA"
) -> tuple[str, str]:
    """(kernel name, source) exactly as kernel_tuner prepares them for `params` (its
    DeviceInterface.create_kernel_instance, without a device)."""
    source = kernel_text(source, f"kernel {spec.kernel}")  # a BOM dropped, control characters refused
    threads, grid = launch(spec, params, sizes)
    ks = KernelSource(spec.kernel, instantiations_wrapped(source, spec.kernel), lang, tuner_defines(spec, sizes))
    name, text, _ = ks.prepare_list_of_files(spec.kernel, params, grid, threads, block_names(spec))
    if ks.lang == "CUDA" and "<" in name and ">" in name:
        try:
            text, name = wrap_templated_kernel(text, name)
        except ValueError as e:  # kernel_tuner finds no template of that name with those arguments
            raise SpecError("kernel", f"{spec.kernel!r}: kernel_tuner cannot instantiate it: {e}") from None
    return name, text
