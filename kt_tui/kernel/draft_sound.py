"""The last pass of a draft (kernel/draft.py): every access the analysis bounds (kernel/extents.py) stays
inside its array at the draft's sizes and at every check size.

An access's top is evaluated with the drafted scalars, the drafted range of each int array whose values
it reads (`x[idx[i] + 1]`: idx's highest and lowest value both tried) and the largest block tuned; a
thread coordinate that a border test among the kernel's guards keeps below its axis's bound less one
counts up to that bound less one (an image read only inside a border the kernel skips is an image of the
whole domain). An array an access reaches past is grown to what it reaches, said as a guess: the index
and the length it passes, or the border tests where only the whole domain passes it; an access below 0
through one array's values (`a[piv[i] - 1]` with a pivot of 0) raises that array's lowest value to what
keeps it at 0 or above. An access through values of unknown range (floats, a file) or the grid's size is left alone, and
so is a growth past MAX_ELEMENTS (an over-approximated index)."""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction
from functools import partial

from . import extents
from .draft_relations import env_at
from .draft_sizes import MAX_ELEMENTS
from .draft_types import is_int
from .expr import ExprError, evaluate
from .poly import Poly
from .spec import Arg, Spec

LOAD = re.compile(r"\$(\w+)")
NAME = re.compile(r"(?<![\w.$@])[A-Za-z_]\w*(?![\w(])")
BLOCK = re.compile(r"@b([xyz])")
MAX_LOADS = 3  # arrays read in one index whose corners are tried (2 ** 3 evaluations a point)


def _range(a: Arg, env: dict[str, int]) -> tuple[int, int] | None:
    """The lowest and highest value the draft puts in int array `a` at `env`, or None when not told."""
    if not a.is_array or not is_int(a.type):
        return None
    try:
        if a.init == "range":
            low = int(evaluate(a.low, env)) if a.low is not None else 0
            return low, low + int(evaluate(a.size, env)) - 1
        if a.init == "zeros":
            return 0, 0
        if a.init in ("random", "offsets", "whole") and a.low is not None and a.high is not None:
            return int(evaluate(a.low, env)), int(math.ceil(evaluate(a.high, env))) - 1
    except (ExprError, TypeError, ValueError):
        return None
    return None


def _block_max(spec: Spec, axis: str) -> int | None:
    names = spec.block_size_names or ["block_size_x", "block_size_y", "block_size_z"]
    values = spec.tune_params.get(names["xyz".index(axis)], [1]) if "xyz".index(axis) < len(names) else [1]
    whole = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    return max(whole) if whole else None


def _texts(h: Poly, spec: Spec, arrays: dict[str, Arg], env: dict[str, int], known: dict[str, str]) -> list[str]:
    """`h` as texts over the sizes and scalars, one per corner of the loaded arrays' ranges (each load put
    in as its lowest or highest value), or [] where a name is not known."""
    xs = sorted(set(LOAD.findall(h.text())))
    if len(xs) > MAX_LOADS or any(x not in arrays or _range(arrays[x], env) is None for x in xs):
        return []
    out = []
    for corner in itertools.product((0, 1), repeat=len(xs)):
        ends = {x: _end(arrays[x], c) for x, c in zip(xs, corner, strict=True)}
        p = h
        for x, end in ends.items():
            p = p.substitute(f"${x}", Poly.const(end)) if isinstance(end, int) else p
        text = BLOCK.sub(lambda m: str(_block_max(spec, m.group(1)) or "@"), p.text())
        text = LOAD.sub(partial(_put, ends), NAME.sub(lambda m: known.get(m[0], m[0]), text))
        if "@" in text:
            return []
        out.append(text)
    return out


def _put(ends: dict[str, int | str], m: re.Match[str]) -> str:
    return f"({ends[m.group(1)]})"


def _end(a: Arg, top: int) -> int | str:
    """The expression of the lowest (top 0) or highest (top 1) value the draft puts in `a`."""
    if a.init == "zeros":
        return 0
    if a.init == "range":
        low = a.low if a.low is not None else 0
        return (low if isinstance(low, int) else str(low)) if not top else f"{low} + ({a.size}) - 1"
    end = a.high if top else a.low
    if isinstance(end, int):
        return end - 1 if top else end
    return f"ceil({end}) - 1" if top else str(end)


def _whole_domain(h: Poly, an: extents.Analysis) -> tuple[Poly, list[str]]:
    """`h` with each thread coordinate that a border test keeps t > 1 below its axis's bound N (`x > 0
    && x < width - 1` around `dx[y * step + x]`: the test found among the kernel's guards, and (N - t) * P
    in h, P one term) moved to N - 1: an image the kernel reads only inside a border is still an image
    of the whole domain; and the tops `N - t` moved. A reach short of N for another reason (`t + k - c`, two
    counters' tops) is no border."""
    out, moved = h, []
    for n in sorted({next(iter(b.names())) for b in an.axes.values() if len(b.names()) == 1 and len(b.terms) == 1}):
        if (border := _border(n, an)) and (
            b_poly := Poly.var(n) if all(m.count(n) == 1 for m in h.terms if n in m) else None
        ):
            coef = h.coefficient(n)
            if len(coef.terms) == 1 and not any(v.startswith("$") for v in coef.names()):
                (m, c), rest = next(iter(coef.terms.items())), h - coef * b_poly
                t = min(-rest.terms.get(m, Fraction(0)) / c, Fraction(border))
                if t.denominator == 1 and t > 1:
                    out = out.substitute(n, b_poly + Poly.const(t - 1))
                    moved.append(f"{n} - {t}")
    return out, moved


def _border(n: str, an: extents.Analysis) -> int:
    """t where a test keeps a coordinate at most N - t, t > 1 (`x < width - 1`), N the bound `n`; else 0."""
    found = 0
    for reached, top in an.guarded:
        below = top - Poly.var(n)
        if top.names() == {n} and below.is_const() and below.value() <= -2 and (reached - top).is_const():
            found = max(found, int(-below.value()))
    return found


def _le(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and a <= b


def _at(text: str, env: dict[str, int]) -> float | None:
    try:
        return float(evaluate(text, env))
    except (ExprError, TypeError, ValueError, ZeroDivisionError):
        return None


def fit(spec: Spec, an: extents.Analysis, guesses: list[tuple[str, str]]) -> None:
    """Grow each array an access reaches past, and raise the lowest value of an index array that takes
    an access below 0, at the draft's sizes and at each check size."""
    arrays = {a.name: a for a in spec.args if a.is_array}
    values = {a.name: a.value for a in spec.args if not a.is_array and a.name not in spec.sizes}
    known = {n: f"({v})" for n, v in values.items() if isinstance(v, int | str) and not isinstance(v, bool)}
    for a in arrays.values():  # a bound over a scalar that is no size (`lda + 1`): over the sizes
        a.low, a.high = (
            NAME.sub(lambda m: known.get(m[0], m[0]), v) if isinstance(v, str) else v for v in (a.low, a.high)
        )
    envs = [env_at(spec, t) for t in [dict(spec.sizes), *(x["sizes"] for x in spec.extra_sizes())]]
    for arr in list(arrays.values()):
        use = an.uses.get(arr.name)
        if use is None or not isinstance(arr.size, int | str) or arr.init == "file":
            continue
        _grow(arr, use, an, spec, arrays, envs, known, guesses)
        if len(use.lows) != len(use.accesses):  # a pointer passed where the walk cannot follow: no low said
            continue
        for h, low in zip(use.accesses, use.lows, strict=True):
            if h is not None and low is not None:
                _raise_low(h, low, arrays, envs, guesses)


def _grow(
    arr: Arg,
    use: extents.Use,
    an: extents.Analysis,
    spec: Spec,
    arrays: dict[str, Arg],
    envs: list[dict[str, int]],
    known: dict[str, str],
    guesses: list[tuple[str, str]],
) -> None:
    """`arr` grown to the largest reach of its accesses past its length at some size (see the module's doc)."""
    short: dict[str, list[float | None]] = {}
    tops: dict[str, str] = {}  # a reach -> the top of the index it is drawn from, before the whole domain
    bordered: dict[str, list[str]] = {}  # a reach past the length only as the whole domain -> the border tests
    have = [_at(str(arr.size), e) for e in envs]
    for h in (h for h in use.accesses if h is not None):
        whole, moved = _whole_domain(h, an)
        plain = _texts(h, spec, arrays, envs[0], known)
        for text, top in zip(_texts(whole + Poly.const(1), spec, arrays, envs[0], known), plain, strict=True):
            reach = [_at(text, e) for e in envs]
            if any(r is not None and n is not None and n < r for r, n in zip(reach, have, strict=True)):
                short[text] = reach
                tops.setdefault(text, top)
                if moved and all(_le(_at(f"{top} + 1", e), n) for e, n in zip(envs, have, strict=True)):
                    bordered[text] = moved
    keys = list(short)
    kept = [  # the corners no other reaches past at every size (of equal ones, the first)
        t
        for i, t in enumerate(keys)
        if not any(
            j != i
            and all(_le(a, b) for a, b in zip(short[t], short[o], strict=True))
            and (j < i or short[t] != short[o])
            for j, o in enumerate(keys)
        )
    ]
    grown = [_at(f"max({arr.size}, {', '.join(kept)})", e) for e in envs] if kept else []
    if not grown or not all(g is not None and g <= MAX_ELEMENTS for g in grown):
        return
    old = str(arr.size)
    alone = len(kept) == 1 and all(_le(n, r) for n, r in zip(have, short[kept[0]], strict=True))
    alone = alone and set(NAME.findall(str(arr.size))) <= set(NAME.findall(kept[0]))
    arr.size = kept[0] if alone else f"max({arr.size}, {', '.join(kept)})"
    said = "grown to what the kernel's indices reach at the drafted sizes and values: "
    past = [t for t in kept if t not in bordered]
    if not past:
        tests = " and ".join(sorted({b for t in kept for b in bordered[t]}))
        why = (
            f"{arr.name} is read only inside a border the kernel skips (a test keeps the coordinates at most "
            f"{tests}; the index reaches {' and '.join(f'`{tops[t]}`' for t in kept)}): sized for the whole domain"
        )
    else:
        at = next(i for i, n in enumerate(have) if any(n is not None and _le(n + 1, short[t][i]) for t in past))
        env = envs[at]
        where = "the drafted sizes" if at == 0 else "a check size (" + _sizes(spec, env) + ")"
        index = " and ".join(f"`{tops[t]}` (= {_number(_at(tops[t], env))})" for t in past)
        why = (
            f"an index of {arr.name} reaches {index}, past its drafted length {old} (= {_number(have[at])}) at "
            f"{where}: the draft would read or write past the array"
        )
    guesses.append((f"args.{arr.name}", said + why))


def _sizes(spec: Spec, env: dict[str, int]) -> str:
    return ", ".join(f"{k} = {env[k]}" for k in spec.sizes if k in env)


def _number(v: float | None) -> str:
    return "?" if v is None else f"{v:g}" if not float(v).is_integer() else str(int(v))


def _raise_low(
    h: Poly, low: Poly, arrays: dict[str, Arg], envs: list[dict[str, int]], guesses: list[tuple[str, str]]
) -> None:
    """An access `$x + rest` whose lowest index is rest's constant term, below 0, at x's values from 0
    (`a[piv[i] - 1]`, 1-based pivots): x's values from what keeps it at 0."""
    xs = sorted(set(LOAD.findall(h.text())))
    if len(xs) != 1 or xs[0] not in arrays or h.terms.get((f"${xs[0]}",)) != 1 or not low.is_const():
        return
    if low.value() != h.terms.get((), 0):  # below 0 for another reason (`live ? keys[i] : -1`)
        return
    x, need = arrays[xs[0]], -int(math.floor(low.value()))
    ranges = [_range(x, e) for e in envs]
    if need <= 0 or x.init not in ("random", "whole") or any(r is None or r[0] != 0 or r[1] < need for r in ranges):
        return
    x.low = need
    guesses.append(
        (
            f"args.{x.name}",
            f"values from {need}: the kernel indexes with them less {need} (1-based), so a smaller one reads "
            "before the array",
        )
    )
