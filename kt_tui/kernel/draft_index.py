"""The bounds of an index array's values (kernel/draft_sizes.py): values an int array holds that index
another array stay below what that array's length lets them reach (`x[idx[i]]`: idx below x's length;
`v * ncols + col`: v below the rows)."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from . import extents
from .draft_types import int_lane
from .poly import Poly, at_least
from .source import Kernel
from .spec import DTYPES

High = tuple[Poly, Callable[[dict[str, int]], str | int]]  # a bound to compare, and its text given the size order
Resolve = Callable[[Poly | None], Poly | None]


def loads(p: Poly) -> set[str]:
    """The arrays whose read values p holds (`$idx`)."""
    return {n[1:] for n in p.names() if n.startswith("$")}


def index_highs(
    an: extents.Analysis, found: dict[str, list[Poly]], resolve: Resolve, order: dict[str, int]
) -> tuple[dict[str, str | int], list[str]]:
    """(index array -> the exclusive bound of its values, the arrays indexed in a way not followed: kept
    in [0, 1)); `found`: each array's length candidates, `resolve`: an index bound over the sizes."""
    out: dict[str, str | int] = {}
    unfollowed: list[str] = []
    highs: dict[str, list[High | None]] = {}
    for b_name, use in an.uses.items():
        ext = found[b_name]
        for h in (resolve(h) for h in use.accesses):
            if h is None:
                continue
            for x in loads(h):
                coef = h.terms.get((f"${x}",), Fraction(0))
                rest = h - Poly.var(f"${x}") * Poly.const(coef)
                ok = coef > 0 and not loads(rest) and len(ext) == 1 and coef.denominator == 1
                if not ok and len(ext) == 1:  # v * ncols + col: v picks a row of ncols
                    highs.setdefault(x, []).append(_row_high(ext[0], h, f"${x}"))
                    continue
                highs.setdefault(x, []).append(_high(ext[0], rest, int(coef)) if ok else None)
    for x, den in an.scaled.items():  # v * S / D indexes [0, S) for v in [0, D)
        if x in an.uses and x not in highs:
            out[x] = int(den.value()) if den.is_const() else den.text(order)
    for x, hs in highs.items():
        if x not in an.uses:
            continue
        good = [h for h in hs if h is not None]
        if len(good) < len(hs) or not good:
            unfollowed.append(x)
            out[x] = 1
            continue
        best: High | None = good[0]
        for other in good[1:]:
            if best is None:
                break
            best = best if at_least(other[0], best[0]) else other if at_least(best[0], other[0]) else None
        if best is None:
            out[x] = f"min({', '.join(dict.fromkeys(str(g[1](order)) for g in good))})"
        else:
            out[x] = best[1](order)
    return out, unfollowed


def past(his: list[Poly | None]) -> int:
    """How far past a loaded value an array indexed only by loaded values is read, where each index is
    one value plus a constant (`row_ptr[v + 1]`: 1): the array holds that many more elements than the
    values' bound, so the values range over all of it (CSR's n + 1 row offsets for n rows)."""
    out = 0
    for h in his:
        const = h.terms.get((), Fraction(0)) if h is not None else Fraction(-1)
        rest = h - Poly.const(const) if h is not None else None
        if rest is None or len(rest.terms) != 1 or not loads(rest) or rest.terms.get((next(iter(rest.names())),)) != 1:
            return 0
        if const < 0 or const.denominator != 1:
            return 0
        out = max(out, int(const))
    return out


def row_reach(plain: list[Poly], his: list[Poly | None], an: extents.Analysis) -> list[Poly]:
    """`plain`, an array's lengths from its indices that read no array; where there are none, the lengths
    that indices `rest + $x` imply, x's values an offset inside a row of a stride s (`c * pitch + shift[c]
    + t`): rest is `(R - 1) * s + ... + col`, s the innermost stride (of the lowest thread axis it
    multiplies; a count less one times it), and the array holds whole rows, rest - col + s, so x's values
    reach over the row past col. (Where a plain index reaches into the row, `x[v]` for v < V beside
    `x[target]`, the values are taken as columns of what it reaches, not of the padding.)"""
    if plain:
        return plain
    out: list[Poly] = []
    for h in his:
        xs = loads(h) if h is not None else set()
        if h is None or len(xs) != 1 or h.terms.get((f"${next(iter(xs))}",)) != 1:
            continue
        rest = h - Poly.var(f"${next(iter(xs))}")
        strides = [s for s in rest.names() if _counts_rows(rest.coefficient(s))]
        ranks = sorted((max(an.scales.get(s, {-1})), s) for s in strides)
        if loads(rest) or not ranks or (len(ranks) > 1 and ranks[0][0] == ranks[1][0]):
            continue
        col = Poly({m: c for m, c in rest.terms.items() if not set(m) & set(strides)})
        out.append(rest - col + Poly.var(ranks[0][1]))
    return out


def _counts_rows(coef: Poly) -> bool:
    """`R - 1`: a count of rows less one (the last row's number), R not a constant."""
    return (
        not coef.is_const() and coef.terms.get((), Fraction(0)) < 0 and all(c > 0 for m, c in coef.terms.items() if m)
    )


def _high(ext: Poly, rest: Poly, coef: int) -> High:
    """The exclusive bound of v with coef*v + rest < ext: (a polynomial to compare, its text)."""
    top = ext - rest - Poly.const(1)
    if coef == 1:
        high = top + Poly.const(1)
        return high, lambda order: high.text(order) if not high.is_const() else int(high.value())
    approx = top * Poly.const(Fraction(1, coef)) + Poly.const(1)
    return (
        approx,
        lambda order: f"({top.text(order)}) // {coef} + 1" if not top.is_const() else int(top.value()) // coef + 1,
    )


def _row_high(ext: Poly, h: Poly | None, v: str) -> High | None:
    """The exclusive bound of v where h = v * S + rest < ext, S a whole number times a product of
    sizes (rows of S elements, `(v * nchan + chan) * 4`): with ext - rest - 1 = Q * S + L, Q whole
    and 0 <= L < S, it is Q + 1; None otherwise."""
    if h is None:
        return None
    rows = [(m, c) for m, c in h.terms.items() if v in m]
    if len(rows) != 1 or rows[0][1] < 1 or rows[0][1].denominator != 1 or list(rows[0][0]).count(v) != 1:
        return None
    stride = [n for n in rows[0][0] if n != v]
    row = Poly({tuple(stride): rows[0][1]})
    rest = h - row * Poly.var(v)
    if not stride or loads(rest) or any(n.startswith("$") for n in stride):
        return None
    top = ext - rest - Poly.const(1)
    quotient: dict[tuple[str, ...], Fraction] = {}
    left_over = Poly()
    for m, c in top.terms.items():
        left = list(m)
        if any(left.count(n) < stride.count(n) for n in stride):
            left_over = left_over + Poly({m: c})
            continue
        for n in stride:
            left.remove(n)
        quotient[tuple(left)] = c / rows[0][1]
    high = Poly(quotient) + Poly.const(1)
    whole = all(c.denominator == 1 for c in quotient.values())
    if not whole or not at_least(left_over, Poly()) or not at_least(row - Poly.const(1), left_over):
        return None
    if not at_least(high, Poly.const(1)):
        return None
    return high, lambda order: high.text(order) if not high.is_const() else int(high.value())


def type_reach(kernel: Kernel, name: str) -> int | None:
    """How many values an int array of at most 16 bits can hold (an index it loads reaches below that)."""
    p = next((p for p in kernel.params if p.name == name), None)
    dtype = DTYPES.get(p.base_type) if p is not None else None
    lane = int_lane(dtype) if dtype is not None else None
    if lane is None or np.iinfo(lane).bits > 16:
        return None
    return int(np.iinfo(lane).max) + 1


def loads_of(keys: tuple[str, ...]) -> set[str]:
    return {m[1:] for k in keys for m in re.findall(r"\$\w+", k)}


def padded(h: Poly, ints: set[str], counts: set[str]) -> tuple[str, str, Poly] | None:
    """(x, R, h with x's values at R) for an index `(b * R + v) * S + j`, v a loop's counter below a count
    read from x per item (x among `counts`, arrays whose values bound loops), whose largest value holds `(n - 1) * R * S` (the last item's block: -R * S): each item's block
    holds R rows of S, so a count read is at most R (lengths of a padded batch); None for another index."""
    xs = loads(h)
    if len(xs) != 1:
        return None
    x = next(iter(xs))
    if x not in counts:
        return None
    var = f"${x}"
    stride = h.coefficient(var)
    if not stride.terms or var in stride.names() or loads(stride):
        return None
    for r in sorted((h.names() & ints) - stride.names()):
        block = Poly.var(r) * stride
        if any(h.terms.get(m) != -c for m, c in block.terms.items()):
            continue
        full = h.substitute(var, Poly.var(r))
        if not loads(full) and all(c > 0 for m, c in full.terms.items() if m):
            return x, r, full
    return None
