"""An int scalar tested against a masked or reduced value: `((x + y) & 1) != color`, `lane == leader`
with `lane = threadIdx.x % 32`. The value tested runs over 0 .. c for `& c` and over 0 .. c - 1 for
`% c` (c a literal); a scalar outside that range makes one outcome of the test never happen (colour 3
of a checkerboard: every site skipped), so the draft keeps it inside and a spec outside is warned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import cuda_ast
from .cuda_ast import text
from .draft_below import _locals
from .draft_relations import _ident, _int
from .draft_roles import unwrapped
from .spec import Spec

Node = Any
TESTS = ("==", "!=", "<", "<=", ">", ">=")
MAX_MASK = 1 << 16  # a wider mask or modulus is a size, not a small set of values


@dataclass(frozen=True)
class Masked:
    scalar: str
    top: int  # the tested value runs over 0 .. top
    test: str  # the test as the kernel writes it


def _range_top(n: Node | None, locals_: dict[str, Node], depth: int = 0) -> int | None:
    """top for a value that runs over 0 .. top: `e & c` (c >= 0) or `e % c` (c > 0), through a local
    declared once with such a value."""
    n = unwrapped(n)
    if n is None:
        return None
    if n.type == "identifier" and (name := text(n)) in locals_ and depth < 3:
        return _range_top(locals_[name], locals_, depth + 1)
    if n.type != "binary_expression":
        return None
    op = text(n.child_by_field_name("operator"))
    left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
    if op == "&":
        c = _int(right) if _int(right) is not None else _int(left)
        return c if c is not None and 0 <= c < MAX_MASK else None
    if op == "%":
        c = _int(right)
        return c - 1 if c is not None and 0 < c <= MAX_MASK else None
    return None


def find(fn: cuda_ast.Function, ints: set[str]) -> list[Masked]:
    """The int scalar arguments `ints` of `fn` tested against a masked or reduced value."""
    if fn.body is None:
        return []
    locals_ = _locals(fn.body)
    out: list[Masked] = []
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) not in TESTS:
            continue
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        for side, other in ((left, right), (right, left)):
            s = _ident(other)
            if s in ints and s not in locals_ and (top := _range_top(side, locals_)) is not None:
                if all(m.scalar != s for m in out):
                    out.append(Masked(s, top, " ".join(text(n).split())[:120]))
    return out


def fit(spec: Spec, found: list[Masked], guesses: list[tuple[str, str]]) -> None:
    """A made-up value outside 0 .. top moves inside it (to top: 1 of a parity, the last lane)."""
    for m in found:
        arg = next((a for a in spec.args if a.name == m.scalar and not a.is_array), None)
        if arg is None or not isinstance(arg.value, int) or isinstance(arg.value, bool) or 0 <= arg.value <= m.top:
            continue
        arg.value = m.top
        key = f"args.{m.scalar}"
        guesses[:] = [g for g in guesses if g[0] != key]
        guesses.append((key, f"{m.top}: the kernel tests `{m.test}`, a value from 0 to {m.top}, against it"))


def warnings(found: list[Masked], env: dict[str, int], label: str) -> list[tuple[str, str]]:
    """(key, line) for each scalar `env` puts outside the range of the value it is tested against."""
    out = []
    for m in found:
        v = env.get(m.scalar)
        if v is not None and not 0 <= v <= m.top:
            out.append(
                (
                    f"masked {m.scalar}",
                    f"args.{m.scalar}: {m.scalar} = {v}{label}, but the kernel tests `{m.test}`, a value from 0 to "
                    f"{m.top}, against it, so one outcome of that test never happens; {m.scalar} is within 0 to "
                    f"{m.top}",
                )
            )
    return out
