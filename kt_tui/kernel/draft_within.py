"""Lengths bounded by another size (kernel/draft_sizes.py, kernel/draft_flags.py): a scalar L that bounds
an index in a check or a loop and that the kernel subtracts from a size E of a thread axis (`(nfft -
win_length) / 2`: a window centred in a frame, `n - k` past a border) is a length within E, at most E;
past it the difference is negative and the offsets it gives point before the extent."""

from __future__ import annotations

from . import cuda_ast
from .cuda_ast import text
from .draft_roles import unwrapped


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
