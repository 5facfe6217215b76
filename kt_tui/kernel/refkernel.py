"""A reference kernel: `[reference] kernel = "naive.cu:add"` in a spec. It takes the spec's arguments,
in order; its outputs, from one run in the GPU worker at its own configuration, are the expected ones
(instead of the original kernel's at its baseline)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeGuard

from ..words import counted
from .expr import ExprError, check_names
from .kernels import SourceError
from .values import BadValue, check_tune_params

KEYS = ("kernel", "problem_size", "grid_div_x", "grid_div_y", "grid_div_z", "params")
_KERNEL = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*\.(?:cu|cuh))\s*:\s*([A-Za-z_][A-Za-z0-9_]*)$")


class BadReference(ValueError):
    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}")
        self.field, self.problem = field, problem


def _want(cond: object, field: str, problem: str) -> None:
    if not cond:
        raise BadReference(field, problem)


def is_kernel(reference: object) -> TypeGuard[dict[str, Any]]:
    return isinstance(reference, dict)


def check_table(table: dict[str, Any]) -> dict[str, Any]:
    """The [reference] table, each key checked; its names are checked by check_names."""
    for k in table:
        _want(k in KEYS, f"reference.{k}", f"unknown key (known: {', '.join(KEYS)})")
    kernel = table.get("kernel")
    _want(
        isinstance(kernel, str) and bool(_KERNEL.match(kernel.strip())),
        "reference.kernel",
        f'expected "FILE.cu:NAME" (a __global__ function in a .cu beside the spec), got {kernel!r}',
    )
    out: dict[str, Any] = {"kernel": str(kernel).strip()}
    for key in KEYS[1:5]:
        v = table.get(key)
        if v is None:
            continue
        v = [v] if isinstance(v, (str, int)) and not isinstance(v, bool) else v
        _want(
            isinstance(v, list) and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in v),
            f"reference.{key}",
            "expected a list of expressions",
        )
        _want(key != "problem_size" or 1 <= len(v) <= 3, f"reference.{key}", "expected 1 to 3 entries")
        out[key] = v
    params = table.get("params", {})
    _want(isinstance(params, dict), "reference.params", "expected a table of name = value, e.g. {block_size_x = 256}")
    try:
        check_tune_params({k: [v] for k, v in params.items()}, "reference.params")
    except BadValue as e:
        raise BadReference(e.field.replace("[0]", ""), e.problem) from None
    if params:
        out["params"] = dict(params)
    return out


def file_and_name(reference: dict[str, Any]) -> tuple[str, str]:
    m = _KERNEL.match(reference["kernel"])
    if m is None:
        raise BadReference("reference.kernel", f'expected "FILE.cu:NAME", got {reference["kernel"]!r}')
    return m.group(1), m.group(2)


def check_names_in(spec: Any) -> None:
    """Its problem size uses [sizes] and its params; its grid divisors its params."""
    ref = spec.reference
    params = set(ref.get("params", {}))
    for i, p in enumerate(ref.get("problem_size", spec.problem_size)):
        where = f"reference.problem_size[{i}]" if "problem_size" in ref else f"problem_size[{i}] (for the reference)"
        _names(p, set(spec.sizes) | params, where, "a size or a reference.params name")
    for key in ("grid_div_x", "grid_div_y", "grid_div_z"):
        for i, d in enumerate(ref.get(key, [])):
            _names(d, params, f"reference.{key}[{i}]", "a reference.params name")


def _names(expr: object, names: set[str], where: str, what: str) -> None:
    try:
        check_names(expr, names, where, what)
    except ExprError as e:
        raise BadReference(where, str(e).removeprefix(f"{where} ")) from None


def check_file(spec: Any) -> None:
    """The file is beside the spec and holds the kernel, whose parameters match the spec's arguments."""
    name, func = file_and_name(spec.reference)
    path = spec.file_path(name)
    _want(path.is_file(), "reference.kernel", f"no such file {path}")
    try:
        from .source import find_kernels, read_source  # here: the CUDA parser only for a reference kernel

        kernels = {k.name: k for k in find_kernels(read_source(path))}
    except SourceError as e:
        raise BadReference("reference.kernel", str(e)) from None
    _want(
        func in kernels,
        "reference.kernel",
        f"{name} has no __global__ function {func!r} (it has: {', '.join(kernels) or 'none'})",
    )
    params = kernels[func].params
    _want(
        len(params) == len(spec.args),
        "reference.kernel",
        f"{func} takes {counted(len(params), 'parameter')}, the spec's kernel {len(spec.args)}: it must take the same arguments",
    )
    for p, a in zip(params, spec.args):
        _want(
            p.is_pointer == a.is_array,
            "reference.kernel",
            f"{func}'s parameter {p.name} is {'a pointer' if p.is_pointer else 'a scalar'}, "
            f"the spec's argument {a.name} {'an array' if a.is_array else 'a scalar'}",
        )


def describe(spec: Any) -> str:
    """One line for the gate and the spec summary."""
    ref = spec.reference
    params = ", ".join(f"{k}={v}" for k, v in ref.get("params", {}).items())
    return f"outputs of the reference kernel {ref['kernel']}" + (f" at {params}" if params else "")


def run_spec(spec: Any, extra: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """The spec that runs the reference kernel (the spec's arguments, its own launch); and its params.
    `extra`: a configuration's values of the tuned parameters that change the outputs (they reach the
    reference kernel as #defines too: its outputs are then that configuration's)."""
    ref = spec.reference
    _, func = file_and_name(ref)
    params = {**dict(ref.get("params", {})), **(extra or {})}
    derived = dataclasses.replace(
        spec,
        kernel=func,
        problem_size=list(ref.get("problem_size", spec.problem_size)),
        grid_div_x=ref.get("grid_div_x"),
        grid_div_y=ref.get("grid_div_y"),
        grid_div_z=ref.get("grid_div_z"),
        block_size_names=None,
        tune_params={k: [v] for k, v in params.items()},
        defaults=dict(params),
        restrictions=[],
        smem_size=None,
        reference=None,
        verify="elementwise",
        verify_reason=None,
    )
    return derived, params


def source(spec: Any) -> str:
    from .source import read_source  # here: as above

    return read_source(spec.file_path(file_and_name(spec.reference)[0]))
