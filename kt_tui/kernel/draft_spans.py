"""Float scalars that bound a range the kernel scales by (kernel/draft.py): the difference of two float
arguments that multiplies or divides (`lo + (hi - lo) * t`, `(hi - lo) / range`) is the width of an output
range, so the first is above the second; a draft that gives them made-up values in the other order maps
every value backwards (or, equal, onto one point)."""

from __future__ import annotations

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import strip_parens
from .spec import Arg

GAP = 1.0  # the width given when the two were drafted equal


def _scaling(n: Node) -> bool:
    """Whether the value of `n` (through parentheses) is a factor of a product or a term of a quotient."""
    up = n.parent
    while up is not None and up.type == "parenthesized_expression":
        up = up.parent
    return up is not None and up.type == "binary_expression" and text(up.child_by_field_name("operator")) in ("*", "/")


def spans(fn: cuda_ast.Function, floats: set[str]) -> list[tuple[str, str]]:
    """(upper, lower) for each difference `upper - lower` of two float scalars of `floats` that scales."""
    if fn.body is None:
        return []
    out: list[tuple[str, str]] = []
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "-" or not _scaling(n):
            continue
        left, right = (strip_parens(n.child_by_field_name(f)) for f in ("left", "right"))
        if left is None or right is None or left.type != "identifier" or right.type != "identifier":
            continue
        pair = (text(left), text(right))
        if pair[0] != pair[1] and set(pair) <= floats and pair not in out and pair[::-1] not in out:
            out.append(pair)
    return out


def ordered(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]]) -> None:
    """Float scalars drafted as numbers whose scaling difference `hi - lo` would be 0 or below: hi above lo
    (the two values swapped, or hi one GAP above lo where they are equal)."""
    given = {
        a.name: a
        for a in args
        if not a.is_array and a.type.startswith("float") and isinstance(a.value, (int, float)) and a.value is not True
    }
    for upper, lower in spans(fn, set(given)):
        hi, lo = given[upper], given[lower]
        if hi.value > lo.value:  # type: ignore[operator]
            continue
        if hi.value == lo.value:
            hi.value = lo.value + GAP  # type: ignore[operator]
        else:
            hi.value, lo.value = lo.value, hi.value
        for a in (hi, lo):
            guesses[:] = [g for g in guesses if g[0] != f"args.{a.name}"]
            guesses.append(
                (
                    f"args.{a.name}",
                    f"{a.value}: `{upper} - {lower}` scales a value (the width of a range mapped onto), so "
                    f"{upper} is above {lower}; set the range you use",
                )
            )
