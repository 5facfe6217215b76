"""The launch spec as written in TOML: pydantic models of its keys and their types, each refused
value worded as the user sees it (`args[2] (a).type: unknown type 'flaot32'`). The models are the
list of known keys. Checks across fields (names resolve, sizes fit, the kernel matches) are in spec.py."""

from __future__ import annotations

import math
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ..tomlfile import TomlError, place, problem_text
from .values import check_tune_params, name_problem

_KERNEL_NAME = re.compile(r"[A-Za-z_]\w*(\s*<[\w\s,:<>*&.+\-()]*>)?")  # nothing after the template


def _need(ok: bool, problem: str) -> None:
    if not ok:
        raise ValueError(problem)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _str_list(v) -> list[str] | None:
    if v is None:
        return None
    v = [v] if isinstance(v, (str, int)) else v
    _need(isinstance(v, list) and all(isinstance(x, (str, int)) for x in v), "expected a list of strings")
    return [str(x) for x in v]


class ArgFile(BaseModel):
    """One [[args]] table."""

    model_config = ConfigDict(extra="forbid", validate_default=True)

    name: Any = None
    type: Any = None
    size: Any = None
    init: Any = None
    value: Any = None
    seed: Any = 1
    output: Any = False
    atol: Any = None
    rtol: Any = None
    file: Any = None
    low: Any = None
    high: Any = None
    copy_of: Any = None
    function: Any = None

    @field_validator("name")
    @classmethod
    def _name(cls, v):
        _need(isinstance(v, str) and bool(v), "missing")
        return v

    @field_validator("type")
    @classmethod
    def _type(cls, v):
        _need(isinstance(v, str), 'missing, e.g. "float32"')
        return v

    @field_validator("atol", "rtol")
    @classmethod
    def _tolerance(cls, v):
        _need(v is None or (_number(v) and math.isfinite(v) and v >= 0), "expected a finite number >= 0")
        return v

    @field_validator("seed")
    @classmethod
    def _seed(cls, v):
        _need(isinstance(v, int), "expected an integer")
        return v

    @field_validator("output")
    @classmethod
    def _output(cls, v):
        _need(isinstance(v, bool), "expected true or false")
        return v

    @field_validator("file", "copy_of")
    @classmethod
    def _name_string(cls, v):
        _need(v is None or (isinstance(v, str) and bool(v)), "expected a non-empty string")
        return v

    @field_validator("low", "high")
    @classmethod
    def _bound(cls, v):
        _need(v is None or isinstance(v, str) or _number(v), "expected a number or a size expression")
        return v


class SpecFile(BaseModel):
    """The spec file's top level, in the order its problems are reported."""

    model_config = ConfigDict(extra="forbid", validate_default=True)

    kernel: Any = None
    args: list[ArgFile] = None
    sizes: Any = {}
    problem_size: Any = None
    tune_params: Any = {}
    defaults: Any = {}
    restrictions: Any = None
    grid_div_x: Any = None
    grid_div_y: Any = None
    grid_div_z: Any = None
    block_size_names: Any = None
    compiler_options: Any = None
    verify_sizes: Any = None
    metrics: Any = {}
    defines: Any = {}
    defines_only: Any = False
    cmem_args: Any = None
    reference: Any = None
    smem_size: Any = None
    verify: Any = "elementwise"
    verify_reason: Any = None
    timeout_s: Any = None
    iterations: Any = None

    @field_validator("kernel")
    @classmethod
    def _kernel(cls, v):
        _need(isinstance(v, str) and bool(v), "missing: the kernel's name")
        _need(
            len(v) <= 200 and bool(_KERNEL_NAME.fullmatch(v)),
            f"{v[:60]!r} is not a kernel name: a C++ name, or one with template arguments such as "
            '"vector_add<float, 4>"',
        )
        return v

    @field_validator("args", mode="before")
    @classmethod
    def _args(cls, v):
        _need(isinstance(v, list) and bool(v), "missing: one [[args]] table per kernel parameter")
        return v

    @field_validator("sizes")
    @classmethod
    def _sizes(cls, v):
        _need(isinstance(v, dict), "expected a table of name = integer")
        for k, n in v.items():
            if not (isinstance(n, int) and not isinstance(n, bool) and n > 0):
                raise TomlError(f"sizes.{k}", f"expected a positive integer, got {n!r}")
        return dict(v)

    @field_validator("problem_size")
    @classmethod
    def _problem_size(cls, v):
        _need(v is not None, 'missing: 1 to 3 sizes, e.g. ["n"]')
        v = v if isinstance(v, list) else [v]
        _need(1 <= len(v) <= 3, "expected 1 to 3 entries")
        return v

    @field_validator("tune_params")
    @classmethod
    def _tune(cls, v):
        return check_tune_params(v)  # BadValue names the parameter and value

    @field_validator("defaults")
    @classmethod
    def _defaults(cls, v):
        _need(isinstance(v, dict), "expected a table of name = value")
        return dict(v)

    @field_validator("restrictions", "compiler_options")
    @classmethod
    def _list(cls, v):
        return _str_list(v) or []

    @field_validator("grid_div_x", "grid_div_y", "grid_div_z", "block_size_names")
    @classmethod
    def _optional_list(cls, v):
        return _str_list(v)

    @field_validator("verify_sizes")
    @classmethod
    def _verify_sizes(cls, v):
        if v is None:
            return None
        _need(isinstance(v, list), "expected a list of tables, e.g. [{n = 1000}, {n = 37}]")
        for i, t in enumerate(v):
            if not (isinstance(t, dict) and t):
                raise TomlError(f"verify_sizes[{i}]", "expected a table of size name = integer, e.g. {n = 1000}")
            for k, n in t.items():
                if not (isinstance(n, int) and not isinstance(n, bool) and n > 0):
                    raise TomlError(f"verify_sizes[{i}].{k}", f"expected a positive integer, got {n!r}")
        return [dict(t) for t in v]

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, v):
        _need(isinstance(v, dict), 'expected a table, e.g. bytes = "3 * 4 * n"')
        for k in v:
            if k not in ("bytes", "flops"):
                raise TomlError(f"metrics.{k}", "unknown key (known: bytes, flops)")
        return dict(v)

    @field_validator("defines")
    @classmethod
    def _defines(cls, v):
        _need(isinstance(v, dict), "expected a table of NAME = value or size expression")
        for k, x in v.items():
            if name_problem(k) is not None:
                raise TomlError(f"defines.{k!r}", str(name_problem(k)))
            if not (_number(x) or isinstance(x, str)):
                raise TomlError(f"defines.{k}", f"expected a number or a size expression, got {x!r}")
            if isinstance(x, float) and not math.isfinite(x):
                raise TomlError(f"defines.{k}", f"expected a finite number, got {x!r}")
        return dict(v)

    @field_validator("defines_only")
    @classmethod
    def _defines_only(cls, v):
        _need(isinstance(v, bool), f"expected true or false, got {v!r}")
        return v

    @field_validator("smem_size")
    @classmethod
    def _smem(cls, v):
        _need(
            v is None or (isinstance(v, (int, str)) and not isinstance(v, bool)),
            "expected bytes: a number or an expression over [sizes] and tuned parameters",
        )
        return v

    @field_validator("verify_reason")
    @classmethod
    def _reason(cls, v):
        _need(v is None or isinstance(v, str), "expected a string")
        return v

    @field_validator("timeout_s")
    @classmethod
    def _timeout(cls, v):
        _need(
            v is None or (_number(v) and math.isfinite(v) and v > 0),
            f"expected a positive number of seconds, got {v!r}",
        )
        return v

    @field_validator("iterations")
    @classmethod
    def _iterations(cls, v):
        _need(
            v is None or (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 10**6),
            f"expected a positive integer (at most 1000000), got {v!r}",
        )
        return v


TOP_KEYS = set(SpecFile.model_fields)
ARG_KEYS = set(ArgFile.model_fields)


def read_spec_file(data: dict) -> SpecFile:
    """`data` (a spec's TOML) checked key by key; TomlError naming the first bad field."""
    try:
        return SpecFile.model_validate(data)
    except ValidationError as e:
        raise _spec_error(e, data) from None


def _spec_error(e: ValidationError, data: dict) -> TomlError:
    errors = e.errors()
    err = next((x for x in errors if x["type"] == "extra_forbidden"), errors[0])
    loc = list(err["loc"])
    inner = (err.get("ctx") or {}).get("error")
    if getattr(inner, "field", None):
        loc = loc[:-1] + [inner.field]
    known = ARG_KEYS if len(loc) > 2 and loc[0] == "args" else TOP_KEYS
    problem = (
        f"unknown key (known: {', '.join(sorted(known))})"
        if err["type"] == "extra_forbidden"
        else "expected a table"
        if err["type"] == "model_type"
        else str(getattr(inner, "problem", "") or problem_text(err))
    )
    where = place(loc)
    if len(loc) > 2 and loc[0] == "args" and loc[2] != "name" and err["type"] != "extra_forbidden":
        arg = data["args"][loc[1]]
        if isinstance(arg.get("name"), str) and arg["name"]:
            where = where.replace(f"args[{loc[1]}]", f"args[{loc[1]}] ({arg['name']})", 1)
    return TomlError(where, problem)
