"""Sizes drafted as a multiple of another (kernel/draft_sizes.py): cells rescaled onto more cells
(adaptive pooling), and a source that each thread samples every k elements (a downsample: `2 * x + dx`
tested against the source's width), as large as the samples reach."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from . import extents
from .poly import Poly


def _derive(
    found: dict[str, list[Poly]], names: set[str], out: Any, order: dict[str, int], name: str, by: Poly, why: str
) -> None:
    """`name` becomes `by` in every candidate extent and leaves the free names; its derivation is a
    guess whose text `why` follows "name = by: "."""
    for cands in found.values():
        cands[:] = [c.substitute(name, by) for c in cands]
    names.discard(name)
    out.derived[name] = by.text(order)
    out.guesses.append((f"args.{name}", f"{name} = {out.derived[name]}: {why}"))


def rescaled(
    an: extents.Analysis,
    found: dict[str, list[Poly]],
    names: set[str],
    fixed: set[str],
    out: Any,
    order: dict[str, int],
) -> None:
    """`o * A / B` (o < B) maps B cells onto A, and `((o + 1) * A + B - 1) / B` ends a window there: A =
    2*B - 1, more cells than B and no multiple of it, so each window spans several of A's cells and their
    rounded ends differ (adaptive pooling)."""
    for b, onto in sorted(an.rescales.items()):
        if b not in an.window_ends:  # a point sampled (nearest), no window: either way round
            continue
        if len(onto.terms) != 1 or onto.degree() != 1 or b not in names or b in onto.names():
            continue
        (a,) = onto.names()
        if a in fixed or a not in names or onto != Poly.var(a) or a in out.derived:
            continue
        why = (
            f"{b} cells are rescaled onto {a} (`* {a} / {b}`): more of them, and no multiple, so each window "
            "spans several and their ends round; set the sizes you use"
        )
        _derive(found, names, out, order, a, Poly.var(b) * Poly.const(2) - Poly.const(1), why)
        fixed.add(b)


def sampled_every(
    an: extents.Analysis,
    found: dict[str, list[Poly]],
    names: set[str],
    fixed: set[str],
    out: Any,
    order: dict[str, int],
) -> dict[str, Poly]:
    """A scalar N tested as the bound of a value that reaches k * E (+ a constant), E a thread axis's size
    and k >= 2 whole (`reflect(2 * x + dx, src_w)`, x < dst_w): a source each thread samples every k
    elements, so N = k * E, the samples' reach. Apart from E, its value would be any modest count: far
    below the reach (every sample reflected or clamped, most past the far edge) or far above it.
    Returns each N's size."""
    sizes: dict[str, Poly] = {}
    for reached, top in an.guarded:
        bound = top + Poly.const(1)
        if len(bound.terms) != 1 or bound.degree() != 1:
            continue
        ((mono, coef),) = bound.terms.items()
        n = mono[0]
        if coef != 1 or n not in names or n in fixed or n in out.derived:
            continue
        scaled = [(m, c) for m, c in reached.terms.items() if m]
        if len(scaled) != 1 or len(scaled[0][0]) != 1:
            continue
        (e,), k = scaled[0]
        if e not in fixed or e in names - fixed or k < 2 or Fraction(k).denominator != 1 or e == n:
            continue
        size = sizes[n] = Poly.var(e) * Poly.const(k)
        reach = size.text(order)
        why = (
            f"it bounds a value that reaches {reach} ({int(k)} apart on each thread of {e}: a source sampled "
            f"every {int(k)}), so the samples span it; set the size you use"
        )
        _derive(found, names, out, order, n, size, why)
        fixed.add(n)
    return sizes
