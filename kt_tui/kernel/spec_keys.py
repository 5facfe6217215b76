"""The launch spec's keys, one value at a time: what each accepts, worded as the user sees it. The
model (spec_model.py) runs these on every spec it reads; checks across keys are in spec_checks.py."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ..tomlfile import TomlError
from . import refkernel
from .expr import ExprError, evaluate
from .values import check_tune_params, name_problem
from .vectors import COMPONENTS, known_vectors, vector_scalar

DTYPES = {
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "float16": "float16",
    "half": "float16",
    "__half": "float16",
    "int8": "int8",
    "char": "int8",
    "signed char": "int8",
    "uint8": "uint8",
    "unsigned char": "uint8",
    "int16": "int16",
    "short": "int16",
    "uint16": "uint16",
    "unsigned short": "uint16",
    "int32": "int32",
    "int": "int32",
    "uint32": "uint32",
    "unsigned int": "uint32",
    "unsigned": "uint32",
    "int64": "int64",
    "long long": "int64",
    "long": "int64",
    "size_t": "uint64",
    "uint64": "uint64",
    "unsigned long long": "uint64",
    # the same types as <cstdint> and longer spellings name them (nvcc on Linux: long is 64 bits)
    **{f"{u}int{b}_t": f"{u}int{b}" for u in ("", "u") for b in (8, 16, 32, 64)},
    "signed int": "int32",
    "short int": "int16",
    "unsigned short int": "uint16",
    "long int": "int64",
    "unsigned long": "uint64",
    "unsigned long int": "uint64",
    "long long int": "int64",
    "unsigned long long int": "uint64",
    "ptrdiff_t": "int64",
}
# CUDA vector types (char1 to double4, float3 and uchar4 among them, kernel/vectors.py): arrays of them are
# arrays of their component type, `lanes` values per element. None pads: a 3-lane vector is aligned to its
# component, the others to their size. half2 and the bfloat16 pairs are not here (no numpy bfloat16).
VECTORS = {
    name: (found[0], found[1])
    for c in COMPONENTS
    for name in (*(f"{c}{n}" for n in (1, 2, 3, 4)), f"{c}4_16a", f"{c}4_32a")
    if (found := vector_scalar(name)) is not None
}
INITS = (
    "random",
    "zeros",
    "ones",
    "range",
    "constant",
    "poison",
    "uniform",
    "normal",
    "positive",
    "file",
    "copy",
    "function",
    "offsets",
    "whole",
    "spikes",
    "ties",
    "lifted",
    "rounded",
)
# init = "whole": whole numbers drawn in [low, high) in any type (floats that tie: equal to each other and
# to the constants 0, 1, 2 a kernel compares with). init = "spikes": floats drawn as "normal", then one
# large value (SPIKES) in each row of `value` elements, at a place that moves along the rows
# (exp overflows past the first; a spike 200 (float64: 1600) below the next row's makes exp underflow to 0).
# init = "ties": floats drawn from 0, +-value and +-sqrt(|value|) (a square of which is |value| in the
# type where one is): a value, a product or a square equal to the constant `value` a kernel compares
# with, and two of them summed equal to twice it. init = "lifted": integers drawn in [low, high) as
# "random", then every other one raised by `value` (an index past its bound by 2**16: a kernel that
# checks the bound skips it; a copy of it in 16 bits, or its low 16 bits, does not). init = "rounded": the
# user's `function`'s floats (float types) rounded to whole numbers within their own range (ties among them, their
# order and signs kept; a strictly monotone lane that rounding would tie is kept: inputs.py rounded_within)
SPIKES = {"float16": (12.0, 36.0, 60.0), "float32": (100.0, 300.0, 500.0), "float64": (800.0, 2400.0, 4000.0)}
SPIKE_PLACES = 5  # the first, the last, the second, the middle, the one before the last, in turn
# init = "offsets": the rows' lengths (the steps between offsets), each once per 8 rows in an order the seed
# picks: empty rows, one element, a few, just under and over a warp of 32, two warps, more
ROW_LENGTHS = (0, 1, 2, 7, 31, 33, 64, 100)
VERIFY_MODES = ("elementwise", "none")  # or "module:function", a Python file next to the kernel
# Default tolerances by dtype (atol, rtol); integers compare exactly.
DEFAULT_TOL = {"float64": (1e-9, 1e-7), "float32": (1e-5, 1e-4), "float16": (1e-2, 1e-2)}

_KERNEL_NAME = re.compile(r"[A-Za-z_]\w*(\s*<[\w\s,:<>*&.+\-()]*>)?")  # nothing after the template
# nvcc/NVRTC options a spec may pass: code generation, math and warnings. Options that run another
# program (-ccbin, -Xcompiler, -Xlinker), read a given file (-include, --options-file) or write
# one (-o, --dependency-output, --keep-dir) are refused: a spec is data.
_OPTION = re.compile(
    r"-O[0-3]|--optimize=[0-3]|--?std=c\+\+(17|20|23)|--?use_fast_math|-lineinfo|--generate-line-info|-w"
    r"|--disable-warnings|-G|--device-debug|-D[A-Za-z_]\w*(=[\w.+-]*)?|-U[A-Za-z_]\w*"
    r"|-arch=(sm|compute)_\d+[af]?|--gpu-architecture=(sm|compute)_\d+[af]?"
    r"|-gencode=arch=compute_\d+[af]?,code=(sm|compute)_\d+[af]?|--?maxrregcount=\d+"
    r"|--?(ftz|prec-div|prec-sqrt|fmad)=(true|false)|--extended-lambda|--expt-extended-lambda"
    r"|--expt-relaxed-constexpr|-rdc=(true|false)|--relocatable-device-code=(true|false)|-lcudadevrt"
    r"|(-Xptxas=|--ptxas-options=)[-\w=,.]+|-I[\w./+-]+|--include-path=[\w./+-]+|-fopenmp"
)


class LateProblem(TomlError):
    """A problem seen once every key read well (one key against another); `field` is below the place
    of the table that was checked, and it is reported after the keys' own problems."""


def need(ok: object, problem: str) -> None:
    if not ok:
        raise ValueError(problem)


def want(ok: object, field_name: str, problem: str) -> None:
    if not ok:
        raise LateProblem(field_name, problem)


def is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_count(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def is_function_ref(text: object) -> bool:
    if not isinstance(text, str):
        return False
    module, sep, func = text.partition(":")
    return bool(sep) and module.replace("_", "a").isalnum() and func.replace("_", "a").isalnum()


def str_list(v: Any) -> list[str] | None:
    if v is None:
        return None
    v = [v] if isinstance(v, (str, int)) else v
    need(isinstance(v, list) and all(isinstance(x, (str, int)) for x in v), "expected a list of strings")
    return [str(x) for x in v]


def kernel_name(v: Any) -> str:
    need(v is not None and v != "", "missing: the kernel's name")
    need(isinstance(v, str), f"expected a string (the kernel's name), got {shown(v)}")
    need(
        len(v) <= 200 and bool(_KERNEL_NAME.fullmatch(v)),
        f'{v[:60]!r} is not a kernel name: a C++ name, or one with template arguments such as "vector_add<float, 4>"',
    )
    return str(v)


def sizes(v: Any) -> dict[str, int]:
    need(isinstance(v, dict), "expected a table of name = integer")
    for k, n in v.items():
        if not is_count(n):
            raise TomlError(f"sizes.{k}", f"expected a positive integer, got {n!r}")
        if n >= 2**63:  # no size expression can use it: its values would not fit kernel_tuner's int64
            raise TomlError(f"sizes.{k}", f"expected a positive integer below 2**63, got {shown(n)}")
    return dict(v)


def problem_size(v: Any) -> list[str | int]:
    need(v is not None, 'missing: 1 to 3 sizes, e.g. ["n"]')
    v = v if isinstance(v, list) else [v]
    need(1 <= len(v) <= 3, "expected 1 to 3 entries")
    return list(v)


def verify_sizes(v: Any) -> list[dict[str, int]] | None:
    if v is None:
        return None
    need(isinstance(v, list), "expected a list of tables, e.g. [{n = 1000}, {n = 37}]")
    for i, t in enumerate(v):
        if not (isinstance(t, dict) and t):
            raise TomlError(f"verify_sizes[{i}]", "expected a table of size name = integer, e.g. {n = 1000}")
        for k, n in t.items():
            if not is_count(n):
                raise TomlError(f"verify_sizes[{i}].{k}", f"expected a positive integer, got {n!r}")
    return [dict(t) for t in v]


def metrics(v: Any) -> dict[str, str | int | float]:
    need(isinstance(v, dict), 'expected a table, e.g. bytes = "3 * 4 * n"')
    for k in v:
        if k not in ("bytes", "flops"):
            raise TomlError(f"metrics.{k}", "unknown key (known: bytes, flops)")
    return dict(v)


def metrics_at(value: dict[str, Any], sizes: dict[str, int]) -> None:
    """Each metric is a size expression >= 0 at `sizes`."""
    for k, v in value.items():
        try:
            want(evaluate(v, sizes) >= 0, f"metrics.{k}", f"must be >= 0, got {v!r}")
        except ExprError as e:
            raise LateProblem(f"metrics.{k}", str(e)) from None


def defines(v: Any) -> dict[str, str | int | float]:
    need(isinstance(v, dict), "expected a table of NAME = value or size expression")
    for k, x in v.items():
        if name_problem(k) is not None:
            raise TomlError(f"defines.{k!r}", str(name_problem(k)))
        if not (is_number(x) or isinstance(x, str)):
            raise TomlError(f"defines.{k}", f"expected a number or a size expression, got {x!r}")
        if isinstance(x, float) and not math.isfinite(x):
            raise TomlError(f"defines.{k}", f"expected a finite number, got {x!r}")
    return dict(v)


def compiler_options(options: list[str], late: bool = True) -> None:
    for i, o in enumerate(options):
        ok = bool(_OPTION.fullmatch(o))
        problem = (
            f"{o!r}: kernels are compiled as C++17 or later, the language the safety review reads "
            "(an older standard reads `??/` trigraphs, which could hide a line from the review)"
            if re.fullmatch(r"--?std=.*", o)
            else f"{o!r} is not allowed: options that run another program, read or write a named file "
            "(-ccbin, -Xcompiler, -include, -o, ...) are refused; allowed are code generation, math, "
            "warnings, -D/-U, -I and -Xptxas options"
        )
        if not ok:
            raise (LateProblem if late else TomlError)(f"compiler_options[{i}]", problem)


def data_file(key: str, v: Any) -> str | dict[str, Any] | None:
    """`cmem_args` or `reference`: a .npz name, a "module:function" or a [reference] table."""
    if key == "reference" and isinstance(v, dict):  # a reference kernel (kernel/refkernel.py)
        try:
            v = refkernel.check_table(v)
        except refkernel.BadReference as e:
            raise LateProblem(e.field, e.problem) from None
    ok = (
        v is None
        or refkernel.is_kernel(v)
        or (isinstance(v, str) and (v.endswith(".npz") or (key == "reference" and is_function_ref(v))))
    )
    want(
        ok,
        key,
        "expected a .npz file name"
        + (' or "module:function" or a [reference] table with kernel = "FILE.cu:NAME"' if key == "reference" else ""),
    )
    out: str | dict[str, Any] | None = v
    return out


def verify(mode: Any, reason: str | None) -> None:
    want(
        isinstance(mode, str) and (mode in VERIFY_MODES or is_function_ref(mode)),
        "verify",
        f'expected one of {", ".join(VERIFY_MODES)} or "module:function" (a .py file next to the kernel), got {mode!r}',
    )
    want(
        mode != "none" or bool(reason and reason.strip()),
        "verify_reason",
        'verify = "none" needs a reason, e.g. verify_reason = "the output is random"',
    )


def arg_dtype(t: str, size: object) -> str:
    """The numpy dtype of an argument's type as written ("float", "unsigned int", "float4")."""
    if size is None and vector_scalar(t) is not None:  # a CUDA vector type passed by value
        return t.strip()
    want(
        size is None or (vector_scalar(t) or ("",))[0] != "bfloat16",
        "type",
        f"{shown(t)} is a scalar's type only: numpy has no bfloat16, so kt-tui makes no array of them "
        '(give their bits as type = "uint16" from a file, or have the kernel take float or half)',
    )
    dtype = DTYPES.get(t.replace("*", "").strip()) or (t.strip() if t.strip() in VECTORS else None)
    more = f"; a scalar may be a CUDA vector type: {', '.join(known_vectors())}, ..." if size is None else ""
    want(
        dtype is not None,
        "type",
        f"unknown type {shown(t)} (use one of {', '.join(sorted(set(DTYPES.values())))}, or a CUDA vector type "
        f"of 1 to 4 lanes: float3, uchar4, short2, ...{more})",
    )
    return str(dtype)


def shown(v: Any, most: int = 40) -> str:
    """`v` as a message echoes it: its repr, cut short past `most` characters (a 200 KB string in a
    spec is not repeated whole)."""
    text = repr(v)
    return text if len(text) <= most else text[: most - 3] + "..."


def lanes_value(v: Any) -> Any:
    """A vector scalar's `value` as read: its lanes, a tuple of numbers or size expressions."""
    if isinstance(v, (list, tuple)):
        need(
            1 <= len(v) <= 4 and all(isinstance(x, str) or is_number(x) for x in v),
            f"expected a vector scalar's lanes, 1 to 4 numbers or size expressions, got {list(v)!r}",
        )
        return tuple(v)
    return v


def arg_init(init: str, file: str | None, copy_of: str | None, function: object) -> None:
    want(init in INITS, "init", f"unknown init {init!r} (use one of {', '.join(INITS)})")
    want(init != "file" or file, "file", 'init = "file" needs file = "NAME.npy" or "NAME.npz"')
    want(file is None or str(file).endswith((".npy", ".npz")), "file", "expected a .npy or .npz file name")
    want(init != "copy" or copy_of, "copy_of", 'init = "copy" needs copy_of = "ARG"')
    want(
        init not in ("function", "rounded") or function is not None,
        "function",
        f'init = "{init}" needs function = "module:function" (a .py file next to the kernel)',
    )
    want(
        function is None or is_function_ref(function),
        "function",
        f'expected "module:function", got {function!r}',
    )


def _finite(v: Any) -> bool:
    """Whether a number is finite as a float: not inf, nan, or an integer past a float's range."""
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def _finite_at_least_0(v: Any) -> bool:
    return v is None or (is_number(v) and _finite(v) and v >= 0)


_ARG_KEYS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "name": (lambda v: isinstance(v, str) and bool(v), "expected a non-empty string, got {v}"),
    "type": (lambda v: isinstance(v, str), 'expected a type name such as "float32", got {v}'),
    "atol": (_finite_at_least_0, "expected a finite number >= 0"),
    "rtol": (_finite_at_least_0, "expected a finite number >= 0"),
    "seed": (lambda v: isinstance(v, int), "expected an integer"),
    "output": (lambda v: isinstance(v, bool), "expected true or false"),
    "file": (lambda v: v is None or (isinstance(v, str) and bool(v)), "expected a non-empty string"),
    "copy_of": (lambda v: v is None or (isinstance(v, str) and bool(v)), "expected a non-empty string"),
    "low": (lambda v: v is None or isinstance(v, str) or is_number(v), "expected a number or a size expression"),
    "high": (lambda v: v is None or isinstance(v, str) or is_number(v), "expected a number or a size expression"),
}


def arg_key(name: str, v: Any) -> Any:
    """An [[args]] key's value as read; ValueError saying what it should be. Keys checked with the
    others (type, init, file, function) are checked by arg_dtype and arg_init."""
    ok, problem = _ARG_KEYS.get(name, (lambda v: True, ""))
    if not ok(v):
        raise ValueError(problem.format(v=shown(v)))
    return lanes_value(v) if name == "value" else v


_TABLES = ("sizes", "tune_params", "defaults", "metrics", "defines")  # absent: empty
_SPEC_KEYS: dict[str, Callable[[Any], Any]] = {
    "kernel": kernel_name,
    "sizes": sizes,
    "problem_size": problem_size,
    "tune_params": check_tune_params,  # BadValue names the parameter and value
    "restrictions": lambda v: str_list(v) or [],
    "compiler_options": lambda v: str_list(v) or [],
    "grid_div_x": str_list,
    "grid_div_y": str_list,
    "grid_div_z": str_list,
    "block_size_names": str_list,
    "verify_sizes": verify_sizes,
    "metrics": metrics,
    "defines": defines,
}
_SPEC_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "defaults": (lambda v: isinstance(v, dict), "expected a table of name = value"),
    "defines_only": (lambda v: isinstance(v, bool), "expected true or false, got {v!r}"),
    "smem_size": (
        lambda v: v is None or (isinstance(v, (int, str)) and not isinstance(v, bool)),
        "expected bytes: a number or an expression over [sizes] and tuned parameters",
    ),
    "verify_reason": (lambda v: v is None or isinstance(v, str), "expected a string"),
    "timeout_s": (
        lambda v: is_number(v) and _finite(v) and v > 0,
        "expected a positive number of seconds, got {v!r}",
    ),
    "iterations": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 10**6,
        "expected a positive integer (at most 1000000), got {v!r}",
    ),
}


def spec_key(name: str, v: Any, check: bool) -> Any:
    """A top-level key's value: checked when `check` (ValueError, or TomlError naming a place in it);
    an absent table is empty, an absent list of strings is [], a timeout is a float."""
    if v is None and name in _TABLES:
        v = {}
    elif v is None and name in ("restrictions", "compiler_options"):
        v = []
    if check and name in _SPEC_KEYS:
        return _SPEC_KEYS[name](v)
    if check and name in _SPEC_CHECKS:
        ok, problem = _SPEC_CHECKS[name]
        need(ok(v), problem.format(v=v))
    if name == "timeout_s" and is_number(v):
        return float(v)
    return dict(v) if name in _TABLES else v
