"""Lengths bounded by another size (kernel/draft_sizes.py, kernel/draft_flags.py): a scalar L that bounds
an index in a check or a loop and that the kernel subtracts from a size E of a thread axis (`(nfft -
win_length) / 2`: a window centred in a frame, `n - k` past a border) is a length within E, at most E;
past it the difference is negative and the offsets it gives point before the extent. An int array whose
values a position is tested below (`if (t >= len[b]) mask`, t <= T) holds lengths: in [1, T + 2), so the
mask and the positions it keeps are both checked."""

from __future__ import annotations

from . import cuda_ast
from .bounds import Analysis
from .cuda_ast import text
from .draft_roles import tested_below, unwrapped
from .poly import Poly

LENGTH_WHY = (
    "a position is tested below each (`t < len[b]`): lengths, from 1 to one past the last position, so some "
    "positions are masked and some kept"
)


def subtracted(fn: cuda_ast.Function, extents: set[str], lengths: set[str]) -> set[tuple[str, str]]:
    """(L, E) for each `E - L` in the kernel with E among `extents` and L among `lengths`."""
    out: set[tuple[str, str]] = set()
    if fn.body is None:
        return out
    for n in cuda_ast.walk(fn.body):
        if n.type != "binary_expression" or text(n.child_by_field_name("operator")) != "-":
            continue
        e, length = unwrapped(n.child_by_field_name("left")), unwrapped(n.child_by_field_name("right"))
        if e is None or length is None or e.type != "identifier" or length.type != "identifier":
            continue
        if text(e) in extents and text(length) in lengths and text(e) != text(length):
            out.add((text(length), text(e)))
    return out


def within_lengths(unit: cuda_ast.Unit, kernel: str, axis_sizes: set[str], bounds: set[str]) -> set[tuple[str, str]]:
    """(L, E): L bounds an index or a loop (`bounds`) and is subtracted from E, a size of a thread axis
    (`axis_sizes`); L is no axis size itself."""
    fn = unit.kernels.get(kernel)
    if fn is None:
        return set()
    return subtracted(fn, axis_sizes, bounds - axis_sizes)


def tested_values(
    an: Analysis, name: str, top: int, defines: dict[str, int], sizes: dict[str, int]
) -> tuple[int, str | int, str] | None:
    """(low, high, why) for an int array's values tested below a size (draft_roles.tested_below: [0, S)) or
    a position tested below them (a length: [1, T + 2) for positions up to T); None for neither."""
    if (tested := tested_below(an, name, top, defines, sizes)) is not None:
        return 0, *tested
    bound = an.lengths.get(name)
    if bound is None or not bound.names() or not bound.names() <= set(sizes) | set(defines):
        return None
    return 1, (bound + Poly.const(1)).text(), LENGTH_WHY
