"""A spec read back from a session database (or sent to the worker) is checked like a spec the user
wrote: every expression passes the whitelist parser over the names it may read, so a hand-edited DB
cannot put text that kernel_tuner would eval into a run or an exported script (issue 22, item 7)."""

from __future__ import annotations

import json

from ..tomlfile import TomlError, check_depth
from .expr import ExprError, check_names
from .values import BadValue, check_tune_params, name_problem


def plain_spec(value) -> dict:
    """The stored spec as a dict: JSON text parsed, its nesting bounded; TomlError for anything else."""
    if isinstance(value, (str, bytes)):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError) as e:
            raise TomlError("", f"not valid JSON ({type(e).__name__})", "the stored spec") from None
    if not isinstance(value, dict):
        raise TomlError("", f"expected a table, got {type(value).__name__}", "the stored spec")
    check_depth(value, "the stored spec")
    return value


def check_stored(spec) -> None:
    """TomlError naming the first field whose expression or name does not pass."""
    try:
        check_tune_params(spec.tune_params)
    except BadValue as e:
        raise TomlError(e.field, e.problem) from None
    tuned, sizes = set(spec.tune_params), set(spec.sizes)
    fields = [(f"restrictions[{i}]", r, tuned) for i, r in enumerate(spec.restrictions or [])]
    fields += [
        (f"{k}[{i}]", e, tuned)
        for k in ("grid_div_x", "grid_div_y", "grid_div_z")
        for i, e in enumerate(getattr(spec, k) or [])
    ]
    fields += [(f"problem_size[{i}]", p, tuned | sizes) for i, p in enumerate(spec.problem_size or [])]
    fields += [(f"defines.{k}", v, sizes) for k, v in (spec.defines or {}).items()]
    fields += [(f"metrics.{k}", v, sizes) for k, v in (spec.metrics or {}).items()]
    if spec.smem_size is not None:
        fields.append(("smem_size", spec.smem_size, tuned | sizes))
    for i, a in enumerate(spec.args):
        for key in ("size", "value", "low", "high"):
            v = getattr(a, key)
            if v is not None and not (key == "value" and a.init == "constant"):
                fields.append((f"args[{i}] ({a.name}).{key}", v, sizes))
    for where, text, names in fields:
        if isinstance(text, bool) or not isinstance(text, (str, int, float)):
            raise TomlError(where, f"expected a number or an expression, got {text!r}")
        if isinstance(text, str):
            try:
                check_names(text, names, where, "a name it may read")
            except ExprError as e:
                raise TomlError(where, str(e).removeprefix(f"{where} ")) from None
    for i, name in enumerate(spec.block_size_names or []):
        if not isinstance(name, str) or name_problem(name):
            raise TomlError(f"block_size_names[{i}]", f"{name!r} is not a parameter name")
