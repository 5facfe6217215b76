"""Int scalars that lay out one pass of a sorting network (kernel/draft.py): an int taken modulo half of
another (`stride % (size / 2)`: where a pass's comparators start in each merge of `size` elements, as
Batcher's odd-even merge numbers them) is a comparator stride within blocks of that size. Both are powers
of two in such a network, and the stride a quarter of the block or below, so that the start is neither 0
nor the block's half and the blocks hold more than one run of comparators; made-up ints (3, 4) are neither."""

from __future__ import annotations

from . import cuda_ast
from .cuda_ast import Node, text
from .draft_roles import strip_parens, unwrapped
from .spec import Spec

BLOCK = 16  # a merge's size: a power of two that small check sizes still hold twice
STRIDE = BLOCK // 4


def _halved(n: Node | None) -> str | None:
    """`b` for `b / 2` or `b >> 1` (through parentheses and casts), else None."""
    n = unwrapped(n)
    if n is None or n.type != "binary_expression":
        return None
    left, right = unwrapped(n.child_by_field_name("left")), strip_parens(n.child_by_field_name("right"))
    op = text(n.child_by_field_name("operator"))
    if left is None or left.type != "identifier" or right is None or (op, text(right)) not in (("/", "2"), (">>", "1")):
        return None
    return text(left)


def strides(fn: cuda_ast.Function, ints: set[str]) -> list[tuple[str, str]]:
    """(stride, block) for each `stride % (block / 2)` of two int scalars of `ints`."""
    if fn.body is None:
        return []
    out = []
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "%":
            continue
        left, block = unwrapped(n.child_by_field_name("left")), _halved(n.child_by_field_name("right"))
        if left is not None and left.type == "identifier" and block is not None:
            pair = (text(left), block)
            if pair[0] != pair[1] and set(pair) <= ints and pair not in out:
                out.append(pair)
    return out


def fit(spec: Spec, fn: cuda_ast.Function, ints: set[str], guesses: list[tuple[str, str]]) -> None:
    """Give each such stride and block (a size, or a scalar drafted as a number) STRIDE and BLOCK."""
    given = {a.name: a for a in spec.args if not a.is_array}
    for stride, block in strides(fn, ints):
        if stride not in given or block not in given:
            continue
        for name, value in ((block, BLOCK), (stride, STRIDE)):
            arg, key = given[name], f"args.{name}"
            if name in spec.sizes and arg.value == name:
                key = f"sizes.{name}"
                spec.sizes[name] = value
                for table in spec.verify_sizes or []:
                    table.pop(name, None)
            elif isinstance(arg.value, int):
                arg.value = value
            else:
                break
            guesses[:] = [g for g in guesses if g[0] not in (f"args.{name}", f"sizes.{name}")]
            guesses.append(
                (
                    key,
                    f"{value}: `{stride} % ({block} / 2)` makes {stride} a comparator stride within merges of {block} "
                    f"elements (a sorting network's pass): powers of two, the stride a quarter of the merge, so "
                    "its start is neither 0 nor the merge's half; set the pass you run",
                )
            )
