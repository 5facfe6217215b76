"""What a tunable parameter's name and values may be, checked wherever they enter (spec, LLM
rewrite, gate edit, steps file, search-space edit, seed rules, import).

kernel_tuner writes every configuration into the kernel source as `#define name value`, and it
is compiled: a name must be a C identifier and a value a finite number or a short word of
[A-Za-z0-9_.] (no whitespace, quotes, `#`, `\\`, `/`), so no value can add a line or an
#include. Booleans are refused: kernel_tuner would write `True`, which is not C.
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
from typing import Any

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
WORD = re.compile(r"[A-Za-z0-9_.]+")
MAX_WORD = 64
MAX_INT = 2**63
MAX_NAME = 128
# names a restriction cannot read as a parameter: the expression language's functions (kernel/expr.py),
# and the Python keywords and builtins that kernel_tuner's restriction strings, which it evals, would
# read instead (a tunable named `min` makes "min(a, b) < 64" call it)
RESERVED = frozenset(
    {"min", "max", "abs", "ceil", "floor", "int", "round", *keyword.kwlist, *keyword.softkwlist}
    | {n for n in dir(builtins) if not n.startswith("_")}
)


class BadValue(ValueError):
    """A tunable name or value that may not be used; `field` names where it is."""

    def __init__(self, field: str, problem: str):
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


def name_problem(name: object) -> str | None:
    """Why `name` cannot be a tunable (or #define) name, or None."""
    if not isinstance(name, str) or not NAME.fullmatch(name) or len(name) > MAX_NAME:
        return f"{name!r} is not a valid name (letters, digits and _, not starting with a digit)"
    if name.startswith("__"):
        return f"{name!r} is not allowed (names may not start with __)"
    if name in RESERVED:
        return f"{name!r} is the name of a function or keyword that restrictions read (choose another name)"
    return None


def value_problem(v: object) -> str | None:
    """Why `v` cannot be a tunable value, or None."""
    if isinstance(v, bool):
        return f"{v!r}: booleans are not allowed (use 0 and 1)"
    if isinstance(v, int):
        return None if abs(v) <= MAX_INT else "an integer beyond 2**63"
    if isinstance(v, float):
        return None if math.isfinite(v) else f"{v!r} is not a finite number"
    if isinstance(v, str):
        if len(v) > MAX_WORD or not WORD.fullmatch(v):
            return f"{v[:40]!r}: a string value must be at most {MAX_WORD} characters of letters, digits, _ and ."
        return None
    return f"{v!r}: expected a number or a short word"


def check_tune_params(tune: object, where: str = "tune_params") -> dict[str, list[Any]]:
    """`tune` as a dict of name -> list; BadValue naming the first bad name or value."""
    if not isinstance(tune, dict):
        raise BadValue(where, "expected a table of name = [values]")
    for name, values in tune.items():
        problem = name_problem(name)
        if problem:
            raise BadValue(f"{where}.{name!r}", problem)
        if not isinstance(values, list) or not values:
            raise BadValue(f"{where}.{name}", "must be a non-empty list of values")
        for i, v in enumerate(values):
            problem = value_problem(v)
            if problem:
                raise BadValue(f"{where}.{name}[{i}]", problem)
        if len(set(map(repr, values))) != len(values):
            raise BadValue(f"{where}.{name}", "has duplicate values")
    return {k: list(v) for k, v in tune.items()}


def clean_tune_params(tune: object, where: str = "tune_params") -> tuple[dict[str, list[Any]], list[str]]:
    """For untrusted input (an LLM's rewrite, a gate edit): the valid names and values, and one
    message per name or value left out."""
    kept: dict[str, list[Any]] = {}
    dropped: list[str] = []
    for name, values in (tune if isinstance(tune, dict) else {}).items():
        problem = name_problem(name)
        if problem:
            dropped.append(f"{where}: {problem}")
            continue
        good: list[Any] = []
        for i, v in enumerate(values if isinstance(values, list) else [values]):
            problem = value_problem(v)
            if problem:
                dropped.append(f"{where}.{name}[{i}]: {problem}")
            elif repr(v) not in map(repr, good):
                good.append(v)
        if good:
            kept[name] = good
        else:
            dropped.append(f"{where}.{name}: no valid value left")
    if not isinstance(tune, dict):
        dropped.append(f"{where}: expected a table of name = [values]")
    return kept, dropped
