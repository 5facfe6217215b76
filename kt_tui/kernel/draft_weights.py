"""Float values whose arithmetic says their range (kernel/draft.py): an input array whose value v is
taken as `1 - v` beside v itself as a factor or a log's argument (`(1 - t) * x + t * y`, `t * log(p) +
(1 - t) * log(1 - p)`) is a probability or a soft target, in [0, 1); one that weights a log term (`w[c]
* log1pf(e)`, `(1 + (w[c] - 1) * t) * softplus`) is a loss weight, positive; one read into a value whose
magnitude is compared with a threshold (draft_guards.thresholds) is drawn on the threshold's scale, [0,
1); an int input a sigmoid is subtracted from (`y[i] - 1 / (1 + expf(-z))`) holds binary labels, 0 or 1."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_decay import draw_uniform, free_floats
from .draft_guards import _op, thresholds
from .draft_pointers import declared_local
from .draft_roles import _locals, _through, strip_parens
from .draft_types import is_int, whole_range
from .spec import Arg

PROBABILITY_SPAN = (0, 1)
LOG_WEIGHT_SPAN = (0.5, 4)  # weights of a loss's terms: positive, about 1, apart from 1 so a dropped one fails
_LOGS = ("logf", "log", "__logf", "log1pf", "log1p", "log2f", "log2", "log10f", "log10")
_ONE = re.compile(r"^\(*\s*1(\.0*)?[fF]?\s*\)*$|^\(*\s*[A-Za-z_]\w*\s*\(\s*1\s*\)\s*\)*$")  # 1, 1.0f, T(1)


def _up(n: Node) -> tuple[Node, Node | None]:
    """`n` widened over the parentheses around it, and the node it is an operand of."""
    up = n.parent
    while up is not None and up.type == "parenthesized_expression":
        n, up = up, up.parent
    return n, up


def _values(fn: cuda_ast.Function, name: str) -> list[Node]:
    """Where the value of a load of array `name` is used: each load itself, or for a load a local is
    declared as alone (`const float t = targets[i]`), each later read of that local."""
    out: list[Node] = []
    for n in cuda_ast.walk(fn.body):
        if n.type != "subscript_expression" or text(n.child_by_field_name("argument")) != name:
            continue
        if (local := declared_local(n)) is not None:
            out += [
                u
                for u in cuda_ast.walk(fn.body)
                if u.type == "identifier" and text(u) == text(local) and u.start_byte != local.start_byte
            ]
        else:
            out.append(n)
    return out


def _complemented(v: Node) -> bool:
    """`1 - v` (1, 1.0f or T(1) on the left)."""
    v, up = _up(v)
    if _op(up) != "-" or up is None:
        return False
    left, right = up.child_by_field_name("left"), up.child_by_field_name("right")
    return right is not None and right.start_byte == v.start_byte and left is not None and bool(_ONE.match(text(left)))


def _logged(v: Node) -> bool:
    """`v` is what a log takes, alone or as `1 - v`."""
    v, up = _up(v)
    if _op(up) == "-" and up is not None and _complemented(v):
        v, up = _up(up)
    if up is not None and up.type == "argument_list":
        call = up.parent
        return call is not None and text(call.child_by_field_name("function")) in _LOGS
    return False


def _factor(v: Node) -> bool:
    v, up = _up(v)
    return _op(up) == "*"


def probability_arrays(fn: cuda_ast.Function, arrays: set[str]) -> set[str]:
    """Arrays of `arrays` whose value is taken as `1 - v` and also as a factor or a log's argument, or
    both `log(v)` and `log(1 - v)`."""
    out: set[str] = set()
    if fn.body is None:
        return out
    for name in arrays:
        values = _values(fn, name)
        complement = any(_complemented(v) for v in values)
        plain = any((_factor(v) or _logged(v)) and not _complemented(v) for v in values)
        if complement and plain:
            out.add(name)
    return out


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
        "the kernel takes 1 - v beside v itself (`(1 - t) * a + t * b`, `log(p)` and `log(1 - p)`: a "
        "probability or a soft target), so in [0, 1)"
    )
    draw_uniform(args, probability_arrays(fn, free_floats(args)), PROBABILITY_SPAN, why, guesses)
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
