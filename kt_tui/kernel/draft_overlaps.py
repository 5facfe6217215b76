"""Layout warnings (kernel/draft_flags.py) read against a spec's values: items that overlap, a length
past the size bounding it, a check too small for whole periods, a running average's weight outside (0, 1).

Items: an access `b * sb + y * pitch + x` (b, y, x below their bounds) lays out items in levels, each
stride stepping over what the smaller ones reach. With the spec's values the strides sorted from the
smallest, each one (that steps at least once) is past all that the terms below it reach: the columns
`x`, then `pitch` rows of them, then `sb` frames; a stride at or below that reach makes two items share
elements (a batch stride below n * inc, a pitch below the width, a frame stride below its rows). A
window the index slides (`o * S + k`, k a filter's counter) and a step that divides its extent (a hop,
`(length - nfft) / hop`) overlap by design and are left out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from . import cuda_ast, extents
from .draft_moments import running_averages
from .draft_periods import PERIODS, periods
from .draft_within import within_lengths
from .poly import Poly, at_least

PLAIN = re.compile(r"[A-Za-z_]\w*")  # a size's name, not a read value (`$a`) or a launch term (`@bx`)


@dataclass(frozen=True)
class Levels:
    """One access split by stride: the terms each stride multiplies (its coefficient: how many items
    past the first it reaches) and what is left (the reach within the smallest item)."""

    coefs: dict[str, Poly]
    rest: Poly


def access_levels(an: extents.Analysis, strides: set[str]) -> list[Levels]:
    """Each distinct access of the kernel over plain names that has a term in `strides`, split by them;
    left out: an access with a term of two strides or a stride squared, one that a window slides (a
    filter's counter in its rest), one with read values or launch terms."""
    out: list[Levels] = []
    for use in an.uses.values():
        lows = use.lows if len(use.lows) == len(use.accesses) else [None] * len(use.accesses)
        for h, low in zip(use.accesses, lows, strict=True):
            if h is None or not h.names() & strides or low is None or not at_least(low, Poly()):
                continue  # an index that may go below 0 is a difference the bound over-approximates
            if not all(PLAIN.fullmatch(v) for v in h.names()) or any(c.denominator != 1 for c in h.terms.values()):
                continue  # read values, launch terms, a division (`(k + n) / 2`): over-approximated
            if any(len([v for v in m if v in strides]) > 1 for m in h.terms):
                continue
            coefs: dict[str, Poly] = {}
            for s in sorted(h.names() & strides):
                coefs[s] = h.coefficient(s)
            rest = Poly({m: c for m, c in h.terms.items() if not set(m) & strides})
            if rest.names() & an.windows or any(not _numbered(c, rest) for c in coefs.values()):
                continue
            levels = Levels(coefs, rest)
            if levels not in out:
                out.append(levels)
    return out


def _numbered(coef: Poly, rest: Poly) -> bool:
    """Whether a stride's coefficient is the top of an item's number (`batch - 1`, `height - 1`: items
    numbered below a size), not a constant (a butterfly's `2 * half`) or the row's own bound (`row *
    cols + x`: the stride is a row number)."""
    return not coef.is_const() and coef.terms.get((), Fraction(0)) < 0 and not coef.names() & rest.names()


def stride_names(an: extents.Analysis, scalars: set[str], defines: set[str]) -> set[str]:
    """The scalar arguments that multiply an index and bound none (a stride, a pitch, a leading
    dimension); a step that divides its extent (a hop) is no item's stride."""
    factors = {x for _, f, _ in an.quotients.values() for x in f}
    return (set(an.scales) & scalars) - an.loop_bounds - an.guard_bounds - factors - defines - set(an.quotients)


def overlaps(levels: Levels, env: dict[str, int]) -> list[tuple[str, float, float, str]]:
    """(stride, its value, the reach it must pass, the reach's text) for each stride of `levels` at or
    below what the smaller strides' terms reach at `env`, where it steps at least once."""
    if not all(v in env for v in levels.rest.names() | {n for c in levels.coefs.values() for n in c.names()}):
        return []
    if not all(s in env for s in levels.coefs):
        return []
    reach = float(levels.rest.value(env))
    text = levels.rest
    out = []
    for s in sorted(levels.coefs, key=lambda s: (env[s], s)):
        count = float(levels.coefs[s].value(env))
        if count < 1:
            continue
        if reach >= 0 and env[s] <= reach:
            out.append((s, float(env[s]), reach + 1, (text + Poly.const(1)).text()))
        reach += count * env[s]
        text = text + levels.coefs[s] * Poly.var(s)
    return out


@dataclass
class Relations:
    """What the kernel says of its scalars that a spec's values can contradict."""

    levels: list[Levels]
    lengths: set[tuple[str, str]]  # (L, E): L subtracted from E, a length within E
    periods: list[tuple[str, str]]  # (stride, dim) of `(i / stride) % dim`, i a thread's index
    weights: list[str]  # the mix weights of running averages
    corrections: dict[str, str]  # the bias corrections that divide them -> the weight
    size: str  # the one-dimensional problem's size ("" where it is none)


def relations(
    unit: cuda_ast.Unit, kernel: str, an: extents.Analysis, scalars: set[str], problem: list[str]
) -> Relations:
    fn = unit.kernels[kernel]
    axis_sizes = {v for p in an.axes.values() for v in p.names()}
    averages = running_averages(unit, kernel, scalars)
    return Relations(
        levels=access_levels(an, stride_names(an, scalars, set(unit.defines))),
        lengths=within_lengths(unit, kernel, axis_sizes & scalars, (an.guard_bounds | an.loop_bounds) & scalars),
        periods=periods(fn, scalars),
        weights=averages[0],
        corrections=averages[1],
        size=problem[0] if len(problem) == 1 and problem[0] in axis_sizes else "",
    )


def relation_warnings(
    rel: Relations, env: dict[str, int], floats: dict[str, float], label: str
) -> list[tuple[str, str]]:
    """(key, line) for each contradiction at `env` (whole values) and `floats` (float scalars' values)."""
    out: list[tuple[str, str]] = []
    for levels in rel.levels:
        for s, have, need, reach in overlaps(levels, env):
            out.append(
                (
                    f"rows {s}",
                    f"args.{s}: {s} = {have:g} < {reach} = {need:g}{label}: the kernel steps from one item (a row, a "
                    f"vector, a frame) to the next by {s}, and what an item holds reaches {reach}, so items overlap; "
                    "a stride is at least what it steps over",
                )
            )
    for length, over in sorted(rel.lengths):
        if length in env and over in env and env[length] > env[over]:
            out.append(
                (
                    f"length {length}",
                    f"args.{length}: {length} = {env[length]} > {over} = {env[over]}{label}: the kernel subtracts it "
                    f"from {over} (a length within {over}), so the difference is negative and the offsets it "
                    "gives point before the extent",
                )
            )
    if rel.size in env:
        for stride, dim in rel.periods:
            if stride in env and dim in env and 0 < env[rel.size] < PERIODS * env[stride] * env[dim]:
                out.append(
                    (
                        f"period {stride} {dim}",
                        f"sizes.{rel.size}: {rel.size} = {env[rel.size]} < {PERIODS} * {dim} * {stride} = "
                        f"{PERIODS * env[stride] * env[dim]}{label}: the kernel takes a thread's index / {stride} % "
                        f"{dim}, so this check holds less than {PERIODS} whole periods and cannot tell one slice "
                        "from several",
                    )
                )
    for w in rel.weights:
        if w in floats and not 0 < floats[w] < 1:
            out.append(
                (
                    f"weight {w}",
                    f"args.{w}: {w} = {floats[w]:g}: it weights a running average against a new value "
                    f"(`{w} * m + (1 - {w}) * g`); outside (0, 1) the average grows without bound or changes sign",
                )
            )
    for c, w in sorted(rel.corrections.items()):
        if c in floats and not 0 < floats[c] <= 1:
            out.append(
                (
                    f"weight {c}",
                    f"args.{c}: {c} = {floats[c]:g}: it divides a running average weighted by {w}, a bias "
                    f"correction 1 - {w}^t, which lies in (0, 1]",
                )
            )
    return out
