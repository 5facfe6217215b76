"""Layouts a draft (kernel/draft_sizes.py) must give beyond array lengths: a size derived by division
(`w / f`) made exact by taking w a whole multiple of f, and a stride from one item (a row, a matrix) to
the next at least what one item spans, so items do not overlap (a batch stride >= M * K, a pitch >=
nx + halo, a byte pitch >= 4 * width for floats), and array lengths in whole rows (a halo's grid, rows
picked by loaded values)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

from . import extents
from .poly import Mono, Poly, at_least, pmax

ROW_ALIGN = 32  # a stride is padded past one item to a multiple of this many elements, as pitched allocations are


def divided(an: extents.Analysis) -> extents.Analysis:
    """The analysis with each divided argument w of a size by division q = (w + rest) / f written as
    q * f - rest: w a whole multiple of f (plus what was taken away), so q is exact."""

    def sub(p: Poly | None) -> Poly | None:
        if p is None:
            return None
        for q, (v, f, rest) in an.quotients.items():
            p = p.substitute(v, Poly.var(q) * Poly({f: Fraction(1)}) - rest)
        return p

    def subs(ps: list[Poly | None]) -> list[Poly | None]:
        return [sub(p) for p in ps]

    uses = {k: replace(u, accesses=subs(u.accesses), lows=subs(u.lows)) for k, u in an.uses.items()}
    return replace(
        an,
        uses=uses,
        axes={a: p for a, b in an.axes.items() if (p := sub(b)) is not None},
        trips=[p for p in subs(list(an.trips)) if p is not None],
        strides=[p for p in subs(list(an.strides)) if p is not None],
        scaled={k: p for k, b in an.scaled.items() if (p := sub(b)) is not None},
    )


Resolve = Callable[[Poly | None], Poly | None]  # an index bound over the launch -> over the sizes


def item_strides(
    an: extents.Analysis,
    candidates: set[str],
    resolve: Resolve,
    no_threads: set[int],
    spacing: set[str] | None = None,
) -> dict[str, tuple[Poly, Fraction]]:
    """Strides that step from one item to the next: s -> (E, c) where every index s is in is s times
    an item number times c (1; 1/4 for a byte pitch into floats) plus what reaches E - 1 within the
    item: the layout needs s * c >= E. Ordered so that an item's span uses no stride still to come. In
    a cycle (`b * strideA + row * lda + j`) the stride of the lowest thread axis is the inner one, else a
    leading dimension (_leading), else the stride of a loop's counter where the others step items
    (_looped: `f * fstride + y * pitch + x`, y < height a loop), else the one beside a stride of a block
    index alone (`b * stride + p * lda + i`, b = blockIdx.y): its item is what the index reaches
    without the other strides (lda >= n, pitch >= width); with nothing left (`b * sb + i * inc`) it
    spaces elements within an item, is left as it is and noted in `spacing`."""
    items = {s: item for s in sorted(candidates) if (item := _item(an, s, resolve)) is not None}

    def axis(s: str) -> int:
        threads = [a for a in an.scales.get(s, set()) if a >= 0 and a not in no_threads]
        return min(threads, default=3)

    out: dict[str, tuple[Poly, Fraction]] = {}
    while items:
        ready = [s for s, (e, _) in items.items() if not e.names() & (set(items) - {s})]
        if not ready:
            leading = {s for s in items if _leading(an, s, resolve, set(items) - {s})}
            inner = min(items, key=lambda s: (axis(s), s not in leading, s))
            if axis(inner) > 2 and inner not in leading:
                looped = [s for s in items if _looped(an, s, resolve, set(items) - {s})]
                # a stride of a block index alone (`b * stride`, b = blockIdx.y: a block row per item) steps
                # whole items: the one other stride is the inner one (`b * stride + p * lda + i`)
                blocks = [s for s in items if an.scales.get(s) and an.scales[s] <= no_threads]
                if len(looped) != 1 and len(blocks) == 1 and len(items) == 2:
                    looped = [s for s in items if s not in blocks]
                if len(looped) != 1:
                    break
                inner = looped[0]
            alone = _item(an, inner, resolve, set(items) - {inner})
            if alone is None:
                if spacing is not None:
                    spacing.add(inner)
                del items[inner]
            else:
                out[inner] = alone
                del items[inner]
            continue
        for s in ready:
            out[s] = items.pop(s)
    return out


def whole_rows(
    layouts: dict[str, tuple[Poly, Fraction]], spacing: set[str] | None = None
) -> dict[str, tuple[Poly, Fraction]]:
    """An outer stride's item that ends inside the last row of an inner stride (`(m - 1) * lda + n`,
    n no more than lda's own item) spans that row whole (`m * lda`), as a matrix with a leading
    dimension is allocated: a kernel that steps items by m * lda stays inside its own item. Where the
    rows read are numbered below the same size as the columns (`(n - 2) * lda + n`, a square n x n
    matrix whose last columns the kernel leaves), the item is the n rows whole (`n * lda`). A stride in
    `spacing` spaces single elements (`(n - 1) * inc + 1`): the item is its n elements whole (`n * inc`,
    a strided vector as it is allocated)."""
    out: dict[str, tuple[Poly, Fraction]] = {}
    for s, (item, per) in layouts.items():
        rows_of = list(out.items()) + [(t, (Poly.const(1), per)) for t in sorted(spacing or set())]
        for t, (inner, inner_per) in rows_of:
            rows = item.coefficient(t)
            rest = item - rows * Poly.var(t)
            if inner_per == per and rows.terms and t not in rows.names() and at_least(inner, rest):
                square = rows.names() == inner.names() and at_least(inner, rows + Poly.const(1))
                item = (inner if square else rows + Poly.const(1)) * Poly.var(t)
        out[s] = (item, per)
    return out


def _leading(an: extents.Analysis, s: str, resolve: Resolve, without: set[str]) -> bool:
    """Whether s is a leading dimension: it multiplies a row index whose top is below a size (`j * lda`,
    j <= n - 2: a term with a constant part, not a size itself) beside a column below that same size
    (`i + j * lda`, i < n), the other strides' terms left out. Such a stride is the inner one of a layout
    (lda >= n), the strides beside it step whole matrices."""
    found = False
    for use in an.uses.values():
        for raw in use.accesses:
            if raw is None or s not in raw.names():
                continue
            h = resolve(raw)
            if h is None:
                return False
            coef = h.coefficient(s)
            rest = h - coef * Poly.var(s)
            rest = Poly({m: c for m, c in rest.terms.items() if not set(m) & without})
            if () not in coef.terms or coef.terms[()] >= 0 or coef.is_const() or coef.names() != rest.names():
                return False
            found = True
    return found


def _looped(an: extents.Analysis, s: str, resolve: Resolve, without: set[str]) -> bool:
    """Whether s multiplies only loop counters within an item: in every access with s, what s
    multiplies is bounded by loop bounds alone (`y * pitch`, y < height a loop), while the other strides'
    terms (`without`) multiply something else there (an item's number: a block, a thread)."""
    found = False
    for use in an.uses.values():
        for raw in use.accesses:
            if raw is None or s not in raw.names():
                continue
            h = resolve(raw)
            if h is None:
                return False
            coef = h.coefficient(s)
            if coef.is_const() or not coef.names() <= an.loop_bounds:
                return False
            others = Poly({m: c for m, c in h.terms.items() if s not in m and set(m) & without})
            if any(not (set(m) - without) <= an.loop_bounds for m in others.terms):
                found = True
    return found


def _item(
    an: extents.Analysis, s: str, resolve: Resolve, without: set[str] | None = None
) -> tuple[Poly, Fraction] | None:
    """(E, c) for stride s (see item_strides); `without`: strides whose terms are no part of s's item.
    Over-approximated indices (`at + (min(z + 1, nz - 1) - z) * slice`) step faster than s: the slowest
    step is the item's."""
    spans: list[Poly] = []
    per: set[Fraction] = set()
    for use in an.uses.values():
        for raw in use.accesses:
            if raw is None or s not in raw.names():
                continue
            h = resolve(raw)
            if h is None or any(m.count(s) > 1 for m in h.terms):
                return None
            coef = h.coefficient(s)
            rest = h - coef * Poly.var(s)
            rest = Poly({m: c for m, c in rest.terms.items() if not set(m) & (without or set())})
            if any(v.startswith("$") for v in rest.names()) and not any(v.startswith("$") for v in coef.names()):
                continue  # `x[row * Vp + targets[row]]`: a loaded value picks within the item, the others span it
            if coef.is_const() or rest.is_const():
                return None
            if not at_least(Poly({m: c for m, c in rest.terms.items() if m}), Poly()) and not _thread_top(an, rest):
                return None  # `(z * ny + y) * pitch`: y < ny and ny is the number of rows, it spans no item
            span = rest + Poly.const(1)
            unit = _unit(coef, span)  # `(n * C + c) * HW + p`: C counts items of HW elements, C >= the c's
            if unit is not None:
                coef, span = coef.divide(unit) or coef, span.divide(unit) or span
            per.add(_unit_per_item(coef))
            spans.append(span)
    widest = [p for p in spans if all(at_least(p, q) for q in spans)]
    if not widest or not per or (c := min(per)) <= 0:
        return None
    return widest[0], c


def _unit_per_item(coef: Poly) -> Fraction:
    """What a stride's coefficient says of its unit: 1/4 for `(y - 1) / 4` (a byte pitch into floats, every
    term a quarter); 1 where the leading term is 1 or more (`9 * ny - 1`: the rows of a plane and the 8
    planes before it count rows, not units of the stride; `3/2 * h - 1`: a half-height plane after h rows)."""
    return min(next(iter(coef.leading().terms.values())), Fraction(1))


def _thread_top(an: extents.Analysis, rest: Poly) -> bool:
    """Whether `rest` is the top of a thread axis (`x > cols - tw` returns: x <= cols - tw), a count of
    threads less one, so not negative though a size is subtracted in it (`y * step + x`: a row of it)."""
    return any(rest + Poly.const(1) == bound for bound in an.axes.values())


def _unit(coef: Poly, span: Poly) -> Poly | None:
    """The sizes every term of a stride's coefficient and of its item's span has as factors (a stride
    that counts items of HW elements, not elements); None where there is none."""
    common: list[str] | None = None
    for m in list(coef.terms) + list(span.terms):
        left, kept = list(m), []
        for v in common if common is not None else m:
            if v in left:
                left.remove(v)
                kept.append(v)
        common = kept
    if not common or any(v.startswith("$") for v in common):
        return None
    return Poly({tuple(common): Fraction(1)})


def padding(item: Poly, per: Fraction, at: dict[str, int], taken: set[int]) -> Fraction:
    """What a stride adds past one item's span at the sizes `at`: up to the next multiple of ROW_ALIGN
    elements (in the stride's own unit), never 0, so a kernel that uses the span for the stride fails.
    A span just short of whole sizes (`width - 1`: an interior, the border left alone) is padded past
    them, so a kernel that uses the width fails too; a stride of a value in `taken` (another stride's)
    one ROW_ALIGN more, so a kernel that swaps two strides (ldb for ldc) fails."""
    least = item.value(at) / per
    short = item.terms.get((), Fraction(0))
    short = short if -8 <= short < 0 else Fraction(0)  # as a thread bound `x < w - 1` is w threads
    whole = (item - Poly.const(short)).value(at) / per
    step = ROW_ALIGN / per
    pad = (whole // step + 1) * step - least
    while int(least + pad) in taken:
        pad += step
    return pad


def picked_row(his: list[Poly]) -> Poly | None:
    """S where every index is v * S + j with v loaded and 0 <= j < S (a row of S elements that v
    picks: an embedding, a gathered row, `(v * nchan + chan) * 4`), or v * S + j with -S <= j < 0
    (v an exclusive end, a loop `k < v` over rows: `blocks[(k * bd + r) * bd + c]`); None otherwise."""
    rows: set[Poly] = set()
    for h in his:
        picks = [(m, c) for m, c in h.terms.items() if any(v.startswith("$") for v in m)]
        if len(picks) != 1 or picks[0][1] < 1 or picks[0][1].denominator != 1:
            return None
        if sum(v.startswith("$") for v in picks[0][0]) != 1:
            return None
        row = Poly({tuple(v for v in picks[0][0] if not v.startswith("$")): picks[0][1]})
        rest = h - Poly({picks[0][0]: picks[0][1]})
        if row.is_const():
            return None
        within = at_least(rest, Poly()) and at_least(row - Poly.const(1), rest)
        ended = at_least(rest + row, Poly()) and at_least(Poly.const(-1), rest)  # `j < v`: row v - 1's end
        if not within and not ended:
            return None
        rows.add(row)
    return rows.pop() if len(rows) == 1 else None


def round_rows(e: Poly, strides: list[Poly], rounded: dict[str, Poly], name: str) -> Poly:
    """e up to whole rows of a stride the kernel multiplies a thread index by: h*(w + 2) + w + 1
    becomes (h + 1)*(w + 2); `rounded` notes the stride used."""
    for s in strides:
        if s.degree() != 1 or len(s.terms) > 2:
            continue
        var = next(iter(n for m in s.terms for n in m))
        a = s.terms[(var,)]
        if a != 1 or any(m.count(var) > 1 for m in e.terms):
            continue
        b = s.terms.get((), Fraction(0))
        with_v = Poly({tuple(x for x in m if x != var): c for m, c in e.terms.items() if var in m})
        without = Poly({m: c for m, c in e.terms.items() if var not in m})
        if with_v.is_const() or not with_v.terms:
            continue
        r = without - with_v * Poly.const(b)  # e == with_v * s + r
        if r == Poly():
            rounded[name] = s
            return e
        if at_least(Poly(), r) and at_least(s + r, Poly.const(1)):
            rounded[name] = s
            return with_v * s
        if at_least(r, Poly.const(1)) and at_least(s - Poly.const(1), r):
            rounded[name] = s
            return (with_v + Poly.const(1)) * s
    return e


def round_volume(e: Poly, fixed: set[str]) -> Poly:
    """An extent just short of a product of sizes (nx*ny*nz - R*nx*ny - R*nx - R) as that product;
    `fixed` names (#defines) count as numbers."""

    def degree(m: Mono) -> int:
        return sum(1 for v in m if v not in fixed)

    top = max((degree(m) for m in e.terms), default=0)
    lead = [(m, c) for m, c in e.terms.items() if degree(m) == top]
    if top < 1 or len(lead) != 1 or lead[0][1] != 1 or any(v in fixed for v in lead[0][0]):
        return e
    whole = Poly({lead[0][0]: Fraction(1)})
    if any(c > 0 for m, c in (e - whole).terms.items() if m):  # `+ kh*w` past the product: not short of it
        return e
    return whole if e != whole and at_least(whole, e) else e


def unify(found: dict[str, list[Poly]], rounded: dict[str, Poly]) -> None:
    """Arrays laid out in rows of the same stride, with the same leading term, are given the same
    length (an interior written in a padded grid is as long as the grid)."""
    names = [n for n in found if n in rounded and len(found[n]) == 1]
    for a in names:
        for b in names:
            ea, eb = found[a][0], found[b][0]
            if rounded[a] == rounded[b] and ea.leading() == eb.leading():
                bigger = pmax(ea, eb)
                if bigger is not None:
                    found[a] = found[b] = [bigger]


def column_in_row(h: Poly, strides: list[Poly]) -> Poly | None:
    """`row * S + v` with v a value read from memory (`logp[i * ld + target[i]]`, `src[r * cols + idx[o]]`):
    the row's last element, v taken below S, the row length a thread index is multiplied by (else the
    loaded v would be bounded by whatever the array's length left after the rows); None for other shapes."""
    picks = [(m, c) for m, c in h.terms.items() if any(v.startswith("$") for v in m)]
    if len(picks) != 1 or picks[0][1] != 1 or len(picks[0][0]) != 1:
        return None
    rest = h - Poly({picks[0][0]: picks[0][1]})
    if rest.is_const():
        return None
    for s in strides:
        names = s.names()
        if s.degree() == 1 and len(s.terms) == 1 and all(names <= set(m) for m in rest.terms if m):
            return rest + s - Poly.const(1)
    return None


def whole(v: int, m: int) -> int:
    """v rounded up to a multiple of m, at least two of them (two whole groups)."""
    return max(-(-v // m) * m, 2 * m) if m > 1 else v


def maxes(polys: list[Poly]) -> list[Poly]:
    """The polynomials none of the others is always at least: the max of them is the max of all."""
    out: list[Poly] = []
    for p in polys:
        if any(at_least(q, p) for q in out):
            continue
        out = [q for q in out if not at_least(p, q)] + [p]
    return out
