"""Row layouts of a draft (kernel/draft.py): a stride between rows padded past the row, row offsets read
from an array drawn sorted so every row length is checked, index values no larger than their type holds."""

from __future__ import annotations

import re

import numpy as np

from . import cuda_ast, extents
from .cuda_ast import Node, text
from .draft_flags import ROW_PAD, row_spans
from .draft_sizes import Sizing
from .draft_types import int_lane
from .expr import ExprError, evaluate, names_in
from .spec import Arg, Spec
from .spec_keys import ROW_LENGTHS
from .spec_model import default_verify_sizes
from .strengthen import delimits_rows

ROW_SPAN = 256  # row offsets drawn below this: rows of 0 to 255 elements, many lengths, bounded work


def row_stride(name: str, an: extents.Analysis, sizing: Sizing, args: list[Arg]) -> tuple[str, str] | None:
    """(value, span) for an int scalar no size covers that steps rows (`src[row * s + col]`, the row
    read from an array, col below a size): the widest span over the sizes, padded past it by ROW_PAD,
    and by ROW_PAD more per other scalar already given that value (two strides apart)."""
    spans = [s for s in row_spans(an, name) if s.names() and s.names() <= set(sizing.sizes)]
    widest = [s for s in spans if all(s.value(sizing.sizes) >= t.value(sizing.sizes) for t in spans)]
    if not widest:
        return None
    span = widest[0].text()
    wrapped = span if re.fullmatch(r"\w+", span) else f"({span})"
    pad = ROW_PAD
    taken = {a.value for a in args if not a.is_array} | set(sizing.derived.values())
    while f"{wrapped} + {pad}" in taken:
        pad += ROW_PAD
    return f"{wrapped} + {pad}", span


def offsets_for_rows(spec: Spec, rows: dict[str, tuple[str | int, int]], guesses: list[tuple[str, str]]) -> None:
    """Loop bounds read from an array one element longer than the rows it delimits (strengthening's
    rule: another array's length or a scalar's value, plus one) are row offsets: drawn sorted, rows of
    every length in ROW_LENGTHS, below the bound of the values (the work is bounded by it, not by the
    number of rows). Other arrays of loop bounds (a begin and an end apart) keep their values."""
    for a in spec.args:
        if a.name not in rows or not delimits_rows(spec, a):
            continue
        high, at = rows[a.name]
        a.init, a.low, a.high = "offsets", 0, high
        guesses[at] = (
            f"args.{a.name}",
            "row offsets: they bound a loop over the rows they delimit, so sorted rows of "
            f"{', '.join(map(str, ROW_LENGTHS[:-1]))} and {ROW_LENGTHS[-1]} elements in turn are checked, the "
            f"offsets below {high} (the rows past it empty); give real offsets for real work",
        )


def rows_written(an: extents.Analysis, offsets: str) -> bool:
    """Whether the kernel writes an array at an index bounded by values read from `offsets`."""
    return any(
        use.written and any(h is None or f"${offsets}" in h.names() for h in use.accesses + use.lows)
        for use in an.uses.values()
    )


def representable(
    dtype: str, high: str | int, sizes: dict[str, int], guesses: list[tuple[str, str]], name: str
) -> str | int:
    """An index array's exclusive bound of values, no more than its type holds (a uint8 array indexes
    at most 256 entries: the values above its top are never drawn)."""
    lane = int_lane(dtype)
    if lane is None:
        return high
    top = int(np.iinfo(lane).max)
    try:
        over = evaluate(high, sizes) > top
    except ExprError:
        return high
    if not over:
        return high
    guesses.append((f"args.{name}", f"values below {top}: what its type {dtype} holds, below the extent they index"))
    return top if isinstance(high, int) else f"min({high}, {top})"


BUCKET_ITEMS = 4  # items per bucket, at least, at a check size


def buckets_per_items(spec: Spec, guesses: list[tuple[str, str]], atomic: bool) -> None:
    """A size B that only bounds the values of an input array of one value per item of a problem size N
    (`labels` of `npoints` values in [0, nlabels)) is a count of buckets the items fall in: at a check
    size where N shrinks, B shrinks with it (to N / 4, at least 2), so buckets still get several items
    each and a kernel that mixes up two items of one bucket fails. Only where every array the kernel
    writes is written by atomics (`atomic`): a plain store of two items to one bucket is a race."""
    if not atomic:
        return
    dims = {n for p in spec.problem_size for n in names_in(p)} & set(spec.sizes)
    pairs: dict[str, str] = {}  # B -> N
    for a in spec.args:
        if not a.is_array or a.output or not isinstance(a.high, str) or a.high not in spec.sizes or a.high in dims:
            continue
        over = names_in(a.size) & dims
        if len(over) == 1 and not any(a.high in names_in(b.size) for b in spec.args if b.is_array and not b.output):
            pairs.setdefault(a.high, next(iter(over)))
    if not pairs:
        return
    tables = [dict(t) for t in (spec.verify_sizes if spec.verify_sizes is not None else default_verify_sizes(spec))]
    changed = False
    for t in tables:
        for b, n in pairs.items():
            items = t.get(n, spec.sizes[n])
            if b not in t and spec.sizes[b] * BUCKET_ITEMS > items:
                t[b] = max(2, items // BUCKET_ITEMS)
                changed = True
    if changed:
        spec.verify_sizes = tables
        said = ", ".join(f"{b} (values of an array over {n})" for b, n in pairs.items())
        guesses.append(
            ("verify_sizes", f"{said}: at most a quarter of the items at each check size, so each bucket gets several")
        )


def _loop_bounds(fn: cuda_ast.Function) -> dict[str, str]:
    """Each for loop's variable to the identifier it is kept below (`for (int j = ...; j < dim; ...)`)."""
    out: dict[str, str] = {}
    for n in cuda_ast.walk(fn.body):
        cond = n.child_by_field_name("condition") if n.type == "for_statement" else None
        if cond is None or cond.type != "binary_expression" or text(cond.child_by_field_name("operator")) != "<":
            continue
        var, bound = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        if var is not None and bound is not None and var.type == "identifier" and bound.type == "identifier":
            out[text(var)] = text(bound)
    return out


def pointer_row_strides(fn: cuda_ast.Function, ints: set[str]) -> dict[str, str]:
    """Int scalars of `ints` that are a factor of an offset a local pointer is declared at (`const float
    *a = emb + (size_t)r * ld`) when that pointer is read at a loop variable kept below another int scalar
    (`a[j]`, `j < dim`): a row's stride, to the scalar the row spans."""
    if fn.body is None or not ints:
        return {}
    rows: dict[str, set[str]] = {}  # a local pointer -> the scalars its offset is a multiple of
    for n in cuda_ast.walk(fn.body):
        if n.type != "init_declarator":
            continue
        d, v = n.child_by_field_name("declarator"), n.child_by_field_name("value")
        if d is None or d.type != "pointer_declarator" or v is None or v.type != "binary_expression":
            continue
        name = d.child_by_field_name("declarator")
        if name is None or name.type != "identifier" or text(v.child_by_field_name("operator")) != "+":
            continue
        for side in (v.child_by_field_name("left"), v.child_by_field_name("right")):
            factors = _factors(side)
            if len(factors) >= 2:
                rows.setdefault(text(name), set()).update(text(f) for f in factors if text(f) in ints)
    bounds = _loop_bounds(fn)
    out: dict[str, str] = {}
    for n in cuda_ast.walk(fn.body):
        if n.type != "subscript_expression" or text(n.child_by_field_name("argument")) not in rows:
            continue
        index = _factors(cuda_ast.subscript_index(n))
        span = bounds.get(text(index[0])) if len(index) == 1 else None
        if span in ints:
            out.update({s: span for s in rows[text(n.child_by_field_name("argument"))] if s != span})
    return out


def _factors(n: Node | None) -> list[Node]:
    """The factors of a product, casts and parentheses dropped."""
    while n is not None and n.type in ("parenthesized_expression", "cast_expression"):
        n = n.child_by_field_name("value") if n.type == "cast_expression" else n.named_children[-1]
    if n is not None and n.type == "binary_expression" and text(n.child_by_field_name("operator")) == "*":
        return _factors(n.child_by_field_name("left")) + _factors(n.child_by_field_name("right"))
    return [n] if n is not None else []


def strides_past_spans(fn: cuda_ast.Function, args: list[Arg], guesses: list[tuple[str, str]], made_up: str) -> None:
    """Int scalars given a made-up value (their guess starts `made_up`) that step a local pointer's rows
    of another scalar's span: that span plus ROW_PAD."""
    given = {a.name: a for a in args if not a.is_array}
    free = {n for n, a in given.items() if any(g == f"args.{n}" and made_up in w for g, w in guesses)}
    strides = pointer_row_strides(fn, {n for n, a in given.items() if a.type.startswith(("int", "uint"))})
    for name, span in strides.items():
        if name not in free:
            continue
        width = given[span].value
        value = width + ROW_PAD if isinstance(width, int) else f"({width}) + {ROW_PAD}"
        given[name].value = value
        guesses[:] = [g for g in guesses if g[0] != f"args.{name}"]
        guesses.append(
            (
                f"args.{name}",
                f"{value}: it steps the rows of a pointer read at a loop variable kept below {span} (`p = base + "
                f"r * {name}`, `p[j]`, `j < {span}`): at least {span}, padded, so rows do not overlap",
            )
        )


def highs_above_lows(spec: Spec, guesses: list[tuple[str, str]]) -> Spec:
    """A drafted value bound that the spec's sizes or a check size leave at or below its low (an index
    bounded by what an array the draft sized too small has left): as written the spec would not load.
    Such a high becomes low + 1, said as a guess to set."""
    for a in spec.args:
        if not (a.is_array and a.low is not None and a.high is not None):
            continue
        for sizes in [spec.sizes, *(e["sizes"] for e in spec.extra_sizes())]:
            try:
                low, high = evaluate(a.low, sizes), evaluate(a.high, sizes)
            except ExprError:
                break  # the spec check names it
            if high <= low:
                guesses.append(
                    (
                        f"args.{a.name}",
                        f"the values' bound the draft found ({a.high}) is not above {a.low} at {sizes}: "
                        f"every value is {a.low}; set the range the kernel reads",
                    )
                )
                a.high = a.low + 1 if isinstance(a.low, (int, float)) else f"({a.low}) + 1"
                break
    return spec
