"""Int scalars that only lower a count in a divisor (kernel/draft.py): `m2 / (rows - ddof)`, a variance's
delta degrees of freedom, is 0 or 1 where it is used at all, so an int the analysis saw size nothing and that
is only ever subtracted from another int inside a divisor is drawn as 1 (not 0: a kernel that leaves it out
must fail), the count staying well above it."""

from __future__ import annotations

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import unwrapped
from .spec import Spec

NOTHING = "sizes nothing"  # the guess draft.py gives an int it found no role for


def _in_divisor(n: Node) -> bool:
    """Whether `n` (a `count - s`) is, through parentheses and casts, the right operand of a `/`."""
    up = n.parent
    while up is not None and up.type in ("parenthesized_expression", "cast_expression"):
        n, up = up, up.parent
    if up is None or up.type != "binary_expression" or text(up.child_by_field_name("operator")) != "/":
        return False
    right = up.child_by_field_name("right")
    return right is not None and (right.start_byte, right.end_byte) == (n.start_byte, n.end_byte)


def subtracted_in_divisors(fn: cuda_ast.Function, ints: set[str]) -> set[str]:
    """The names of `ints` whose every use is `other - s` with `other` one of `ints`, inside a divisor."""
    if fn.body is None:
        return set()
    found: set[str] = set()
    spoiled: set[str] = set()
    for n in cuda_ast.walk(fn.body):
        if n.type != "identifier" or text(n) not in ints:
            continue
        name, up = text(n), n.parent
        left = up.child_by_field_name("left") if up is not None and up.type == "binary_expression" else None
        right = up.child_by_field_name("right") if up is not None and up.type == "binary_expression" else None
        ok = (
            up is not None
            and right is not None
            and (right.start_byte, right.end_byte) == (n.start_byte, n.end_byte)
            and text(up.child_by_field_name("operator")) == "-"
            and (other := unwrapped(left)) is not None
            and other.type == "identifier"
            and text(other) in ints
            and text(other) != name
            and _in_divisor(up)
        )
        (found if ok else spoiled).add(name)
    return found - spoiled


def fit(spec: Spec, fn: cuda_ast.Function, guesses: list[tuple[str, str]]) -> None:
    """Draw 1 for each int scalar given no role (`sizes nothing`) that only lowers a count in a divisor."""
    ints = {a.name for a in spec.args if not a.is_array and a.type.startswith(("int", "uint"))}
    for name in sorted(subtracted_in_divisors(fn, ints)):
        a = next(a for a in spec.args if a.name == name)
        key = f"args.{name}"
        at = next((i for i, (k, why) in enumerate(guesses) if k == key and NOTHING in why), None)
        if at is None or a.init != "constant" or not isinstance(a.value, int):
            continue
        a.value = 1
        guesses[at] = (
            key,
            "1: it is only subtracted from a count inside a divisor (`n - ddof`, degrees of freedom): 0 or 1, "
            "and 1 so a kernel that leaves it out fails",
        )
