"""Float values whose arithmetic says their range (kernel/draft.py; `1 - v` beside v, a probability, is
kernel/draft_uses.py's): an input array one of whose values weights a log term (`w[c]
* log1pf(e)`, `(1 + (w[c] - 1) * t) * softplus`) is a loss weight, positive; one read into a value whose
magnitude is compared with a threshold (draft_guards.thresholds) is drawn on the threshold's scale, [0,
1); an int input a sigmoid is subtracted from (`y[i] - 1 / (1 + expf(-z))`) holds binary labels, 0 or 1."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_decay import draw_uniform, free_floats
from .draft_guards import _op, thresholds
from .draft_roles import _locals, _through, strip_parens
from .draft_types import is_int, whole_range
from .spec import Arg

PROBABILITY_SPAN = (0, 1)
LOG_WEIGHT_SPAN = (0.5, 4)  # weights of a loss's terms: positive, about 1, apart from 1 so a dropped one fails
_LOGS = ("logf", "log", "__logf", "log1pf", "log1p", "log2f", "log2", "log10f", "log10")
_ONE = re.compile(r"^\(*\s*1(\.0*)?[fF]?\s*\)*$|^\(*\s*[A-Za-z_]\w*\s*\(\s*1\s*\)\s*\)*$")  # 1, 1.0f, T(1)


def _has_log(n: Node | None, locals_: dict[str, list[Node]]) -> bool:
    return any(
        m.type == "call_expression" and text(m.child_by_field_name("function")) in _LOGS for m in _through(n, locals_)
    )


def log_weight_arrays(fn: cuda_ast.Function, arrays: set[str]) -> set[str]:
    """Arrays of `arrays` a load of which lies in one factor of a product whose other factor holds a log
    (through locals): `w[c] * logf(p)`, `(1 + (w[c] - 1) * t) * softplus` with softplus a log1pf."""
    out: set[str] = set()
    if fn.body is None or not arrays:
        return out
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if _op(n) != "*":
            continue
        sides = [n.child_by_field_name("left"), n.child_by_field_name("right")]
        for a, b in (sides, sides[::-1]):
            if a is None or _has_log(a, locals_) or not _has_log(b, locals_):
                continue
            out |= {
                text(m.child_by_field_name("argument"))
                for m in cuda_ast.walk(a)
                if m.type == "subscript_expression" and text(m.child_by_field_name("argument")) in arrays
            }
    return out


_EXP_CALLS = ("expf", "exp", "__expf")


def _sigmoid(n: Node | None, locals_: dict[str, list[Node]]) -> bool:
    """`n` is, through locals, `1 / (1 + exp(...))`: a logistic sigmoid, in (0, 1)."""
    n = strip_parens(n)
    if n is not None and n.type == "identifier" and len(locals_.get(text(n), [])) == 1:
        n = strip_parens(locals_[text(n)][0])
    if n is None or _op(n) != "/" or not _ONE.match(text(n.child_by_field_name("left"))):
        return False
    return any(
        m.type == "call_expression" and text(m.child_by_field_name("function")) in _EXP_CALLS
        for m in cuda_ast.walk(n.child_by_field_name("right"))
    )


def labels(fn: cuda_ast.Function, arrays: set[str]) -> set[str]:
    """Int arrays of `arrays` a load of which (cast or not) is one side of a difference whose other side is
    a sigmoid (`label[i] - 1 / (1 + expf(-x))`: a logistic gradient's target)."""
    out: set[str] = set()
    if fn.body is None or not arrays:
        return out
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if _op(n) != "-":
            continue
        sides = [strip_parens(n.child_by_field_name(f)) for f in ("left", "right")]
        for a, b in (sides, sides[::-1]):
            while a is not None and a.type == "cast_expression":
                a = strip_parens(a.child_by_field_name("value"))
            if a is None or a.type != "subscript_expression" or not _sigmoid(b, locals_):
                continue
            if (name := text(a.child_by_field_name("argument"))) in arrays:
                out.add(name)
    return out


def weighted(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """Float inputs drawn at random (no range given) that are probabilities, then those that weight a
    log term: each drawn in its span."""
    why = (
        "they weight a log term (`w[c] * log(p)`: a loss's class or positive weights): positive, about 1, so each "
        "term counts with its sign"
    )
    draw_uniform(args, log_weight_arrays(fn, free_floats(args)), LOG_WEIGHT_SPAN, why, guesses)
    scalars = {a.name for a in args if not a.is_array and a.type.startswith("float")}
    read = set().union(*thresholds(fn, scalars).values()) & free_floats(args)
    why = (
        "values computed from them are compared with a threshold (`fabsf(c - blur) > t`), whose value is drafted "
        "on this scale (data of a normalised signal or image), so the test goes both ways"
    )
    draw_uniform(args, read, PROBABILITY_SPAN, why, guesses)


def labelled(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """Int inputs drawn over their type's range (or with no range) that are labels (labels()): 0 or 1. Run
    after the other passes on int data: a label cast to float is no intensity."""
    ints = {a.name: a for a in args if a.is_array and not a.output and a.init == "random" and is_int(a.type)}
    for name in labels(fn, {n for n, a in ints.items() if a.low in (None, whole_range(a.type)[0])}):
        ints[name].low, ints[name].high = 0, 2
        guesses[:] = [g for g in guesses if g[0] != f"args.{name}"]
        guesses.append(
            (
                f"args.{name}",
                "values 0 or 1: a sigmoid is subtracted from them (`y - 1 / (1 + exp(-x))`: a logistic "
                "gradient's targets, labels of a binary class)",
            )
        )
