"""Float inputs that decay an exponential (`expf(-sigma[i] * dt[i])`: Beer-Lambert attenuation, a
volume renderer's alpha = 1 - exp(-sigma dt)): drawn not negative, so the exponential stays in (0, 1].
Drawn of both signs, their product overflows it (inf, then alpha -inf and NaN sums), and a check of
outputs that are inf or NaN everywhere proves nothing."""

from __future__ import annotations

import re

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import _EXPS, _locals, strip_parens
from .spec import Arg

DECAY_SPAN = (0, 1)  # [low, high): exp(-a * b) over [e^-1, 1], alpha = 1 - that up to 0.63


def _factors(n: Node | None) -> list[Node]:
    """The factors of a product (`a * b * c`), parentheses dropped."""
    while n is not None and n.type == "parenthesized_expression" and n.named_children:
        n = n.named_children[-1]
    if n is not None and n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "*":
        return _factors(n.child_by_field_name("left")) + _factors(n.child_by_field_name("right"))
    return [n] if n is not None else []


def _negated(n: Node | None) -> Node | None:
    """X for `-X`, parentheses dropped; None for any other node."""
    while n is not None and n.type == "parenthesized_expression" and n.named_children:
        n = n.named_children[-1]
    if n is not None and n.type == "unary_expression" and text(n.child_by_field_name("operator")) == "-":
        return n.child_by_field_name("argument")
    return None


def decay_arrays(fn: cuda_ast.Function, arrays: set[str]) -> set[str]:
    """The arrays of `arrays` loaded (through locals) as factors of a negated product an exponential
    takes: `exp(-(a[i] * b[i]))` or `exp(-a[i] * b[i])` (one factor negated), of two arrays or more."""
    out: set[str] = set()
    if fn.body is None or not arrays:
        return out
    locals_ = _locals(fn)
    for n in cuda_ast.walk(fn.body):
        if n.type != "call_expression" or text(n.child_by_field_name("function")) not in _EXPS:
            continue
        args = n.child_by_field_name("arguments")
        if args is None or len(args.named_children) != 1:
            continue
        whole = _negated(args.named_children[0])
        factors = _factors(whole) if whole is not None else _factors(args.named_children[0])
        if whole is None:
            signs = [_negated(f) for f in factors]
            if sum(s is not None for s in signs) != 1:
                continue
            factors = [s if s is not None else f for f, s in zip(factors, signs)]
        loaded = []
        for f in factors:  # a load, or a local declared as one (`const float s = sigma[i]`)
            if f.type == "identifier" and len(locals_.get(text(f), [])) == 1:
                f = locals_[text(f)][0]
            if f.type == "subscript_expression":
                loaded.append(text(f.child_by_field_name("argument")))
        if len(set(loaded)) >= 2:  # one load alone (a sigmoid's exp(-x)) or squared (a Gaussian) wants both signs
            out |= set(loaded) & arrays
    return out - sign_tested(fn, locals_)


ZERO = re.compile(r"^0+(\.0*)?f?$|^0*\.0+f?$", re.IGNORECASE)


def sign_tested(fn: cuda_ast.Function, locals_: dict[str, list[Node]]) -> set[str]:
    """The arrays whose loads (or a local declared as one) the kernel orders against 0 (`d <= 0.0f`,
    `x[i] < 0`): their negative values take a branch of their own."""
    out: set[str] = set()
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) not in ("<", "<=", ">", ">="):
            continue
        sides = [strip_parens(n.child_by_field_name(k)) for k in ("left", "right")]
        for a, b in (sides, sides[::-1]):
            if a is None or b is None or not ZERO.match(text(b).replace(" ", "")):
                continue
            if a.type == "identifier" and len(locals_.get(text(a), [])) == 1:
                a = strip_parens(locals_[text(a)][0])
            if a is not None and a.type == "subscript_expression":
                out.add(text(a.child_by_field_name("argument")))
    return out


def decayed(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """Float inputs drawn at random (no range given) that decay an exponential: drawn in DECAY_SPAN."""
    why = (
        "a negated product of them reaches an exponential (a decay, exp(-a * b)); of both signs it would "
        "overflow to inf and every output be NaN"
    )
    draw_uniform(args, decay_arrays(fn, free_floats(args)), DECAY_SPAN, why, guesses)


def free_floats(args: list[Arg]) -> set[str]:
    """The float input arrays drawn at random with no range given: those a role may still range."""
    return {
        a.name
        for a in args
        if a.is_array and not a.output and a.init == "random" and a.low is None and a.type.startswith("float")
    }


def draw_uniform(
    args: list[Arg], names: set[str], span: tuple[float, float], why: str, guesses: list[tuple[str, str]]
) -> None:
    """Each array of `names` drawn uniform in `span`, [low, high), said in a guess with `why`."""
    for a in args:
        if a.name in names:
            a.init, (a.low, a.high) = "uniform", span
            guesses.append((f"args.{a.name}", f"values in [{a.low}, {a.high}): {why}"))
