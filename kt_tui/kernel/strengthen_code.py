"""Stronger inputs for values the spec gives no range a rule of kernel/strengthen.py could widen
(issue 35, item 2; session 18's survivors on an H100):
- float arrays the user's Python makes (`init = "function"`): its values rounded to whole numbers, so
  comparisons on them meet the tie (a hit at a triangle's edge, two hits at one distance) as random
  floats do in the ties case, while the order and signs it gave them stay (a sorted array stays sorted);
  not where it makes an integer input too (cell ranges, offsets: made from the floats unrounded);
- an integer array the user's Python makes whose elements the kernel clamps (`min(bin_edges[m + 2],
  n_fft / 2 + 1)`): they are indices below that bound, and the user's Python makes them at the sizes it
  is given: the one size the bound names is raised until the bound passes 2**17, so that a copy of
  them in 16 bits or their low 16 bits read other elements;
- a loop's counter kept as a value (`arg = c` in `for (int c = 1; c < nclasses; ++c)`, an argmax):
  the size bounding the loop raised so, past 16 bits, where a class id in a short turns negative;
- a kernel that works in warps (`__ballot_sync`, `threadIdx.x % 32`) over one size n: n one past a
  multiple of 32 (its last warp has one thread in range: lane 1's work differs from lane 0's), and that
  size's scalar one less (whole warps, the next warp's first thread at the bound).
A raised size takes along the sizes the kernel's reach needs (kernel/extents.py: frames `ld` apart
stay at least `n_fft / 2 + 1` long), and the other sizes are halved until the arrays fit 64 MiB (within
the 256 MiB kernel/strengthen.py widens by)."""

from __future__ import annotations

import math
import re
from typing import Any

from . import cuda_ast, extents
from .expr import ExprError, evaluate, names_in
from .spec_model import Arg, Spec, _valid_at
from .strengthen_common import (
    _BUDGET,
    _FILTER,
    _bound_cases,
    _bytes,
    _float_inputs,
    _int_type,
    _raised_past_16_bits,
    _used_sizes,
)
from .strengthen_shapes import _argument, _params, kernel_code

CASE_BYTES = (
    64 << 20
)  # a raised case's arrays (or twice the spec's), within kernel/strengthen.py's 256 MiB: drawn at each check size
_CODE_MAX = 1 << 16  # a kernel body longer than this is not read for clamps and counters (hostile sources)
_SITES_MAX = 64  # clamps, loops and bounds read, at most: each reads the body once
WORK = 1 << 28  # a raised size times the launch's items: a loop to it in each thread stays a GPU's fraction of a second
_TIE_SEED = 7000  # the tie case's arrays each drawn from its own seed: equal seeds draw equal values


def made_tie_cases(spec: Spec) -> list[dict[str, Any]]:
    """The float arrays the user's Python makes, its values rounded to whole numbers (init =
    "rounded": equal values meet, as random floats never do, and the order, signs and range the user's
    Python gave them stay), with the spec's random float arrays as whole numbers -2 .. 2, each from its
    own seed; none where the user's Python makes no float array, or an integer input beside it (a
    cell's range of particles, a row's offsets: made from the floats as they were, which rounding moves
    out of the cells those say, and the original then misses what a correct kernel finds)."""
    made = [a.name for a in spec.args if a.is_array and a.init == "function" and a.dtype.startswith("float")]
    if not made or any(a.is_array and not a.output and a.init == "function" and _int_type(a.dtype) for a in spec.args):
        return []
    drawn = [a.name for a in _float_inputs(spec, outputs=True)]
    label = f"{', '.join(f'`{n}`' for n in made)} (the user's Python's values) rounded to whole numbers"
    if drawn:
        label += f", {', '.join(f'`{n}`' for n in drawn)} as whole numbers -2 .. 2"
    changes: dict[str, dict[str, Any]] = {
        n: {"init": "whole", "low": -2, "high": 3, "seed": _TIE_SEED + k} for k, n in enumerate(drawn)
    }
    return [{"label": f"{label} (ties)", "args": {**changes, **{n: {"init": "rounded"} for n in made}}}]


def _in_sizes(expr: str, params: dict[str, Arg]) -> str:
    """`expr` over kernel parameters (`n_fft / 2 + 1`) over the spec's sizes; "" where a name in it is
    no integer scalar passed a value, or it is no expression."""
    out = expr
    for name in set(re.findall(r"[A-Za-z_]\w*", expr)):
        a = params.get(name)
        if a is None or a.is_array or not a.dtype.startswith(("int", "uint")) or a.value is None:
            return ""
        out = re.sub(rf"\b{name}\b", f"({a.value})", out)
    try:
        names_in(out)
    except ExprError:
        return ""
    return out


def _top_parts(text: str) -> list[str]:
    """`text` cut at commas outside parentheses and brackets."""
    out, depth, last = [], 0, 0
    for k, c in enumerate(text):
        depth += (c in "([") - (c in ")]")
        if depth == 0 and c == ",":
            out.append(text[last:k])
            last = k + 1
    return [t.strip() for t in [*out, text[last:]]]


def _clamped_bounds(code: str, params: dict[str, Arg]) -> list[tuple[str, str, str]]:
    """(array, its bound in the kernel's words, over the sizes) for each integer input the user's
    Python makes whose element the kernel clamps by `min(array[...], bound)`."""
    made = {p for p, a in params.items() if a.is_array and not a.output and a.init == "function"}
    made = {p for p in made if params[p].dtype.startswith(("int", "uint"))}
    out: list[tuple[str, str, str]] = []
    for m in list(re.finditer(r"\bmin\s*\(", code))[:_SITES_MAX]:
        parts = _top_parts(_argument(code, m.end() - 1))
        if len(parts) != 2:
            continue
        for read, bound in (parts, parts[::-1]):
            name = re.fullmatch(r"(\w+)\s*\[[^\]]*\]", read)
            if name and name.group(1) in made and (sized := _in_sizes(bound, params)):
                out.append((params[name.group(1)].name, bound, sized))
    return out


_FOR = re.compile(r"\bfor\s*\(\s*(?:int|unsigned|long|size_t)?\s*(\w+)\s*=[^;]*;\s*\1\s*<\s*(\w+)\s*;")


_FOR_HEAD = re.compile(r"\bfor\s*\(\s*(?:[\w:]+\s+)*$")  # text ending where a loop's start is set (`for (int j = i;`)


def _kept_counters(code: str, params: dict[str, Arg]) -> list[tuple[str, str, str]]:
    """(counter, the scalar bounding its loop, that bound over the sizes) for each loop counter the
    kernel keeps as a value (`arg = c;`, an argmax's index), not only as an index; another loop
    started at it (`for (int j = i; ...)`) is no such value."""
    out: list[tuple[str, str, str]] = []
    for m in list(_FOR.finditer(code))[:_SITES_MAX]:
        counter, bound = m.group(1), m.group(2)
        kept = [
            k
            for k in re.finditer(rf"\b\w+\s*=\s*{re.escape(counter)}\s*;", code)
            if not _FOR_HEAD.search(code[max(0, k.start() - 80) : k.start()])
        ]
        if kept and (sized := _in_sizes(bound, params)):
            out.append((counter, bound, sized))
    return out


def _reach(
    spec: Spec, source: str, params: dict[str, Arg] | None = None
) -> tuple[extents.Analysis | None, dict[str, Arg]]:
    params = _params(spec, source) if params is None else params
    try:
        return extents.analyse(cuda_ast.parse(source), spec.kernel_base_name()), params
    except Exception:  # noqa: BLE001 - a source the parser cannot read: memcheck alone judges the case
        return None, params


def _within(spec: Spec, an: extents.Analysis | None, params: dict[str, Arg], sizes: dict[str, int]) -> bool:
    """Whether every index the kernel reaches (kernel/extents.py), over scalars the spec passes, lies
    within its array at `sizes`; an index over other names (a value loaded) is left to memcheck."""
    if an is None:
        return True
    scalars = {}
    for p, a in params.items():
        if not a.is_array and a.dtype.startswith(("int", "uint")) and isinstance(a.value, (int, str)):
            try:
                scalars[p] = int(evaluate(a.value, sizes))
            except (ExprError, TypeError, ValueError):
                continue
    try:
        for p, use in an.uses.items():
            array = params.get(p)
            if array is None or not array.is_array:
                continue
            length = int(evaluate(array.size, sizes))
            for top in use.accesses:
                if top is not None and top.names() <= set(scalars) and top.value(scalars) >= length:
                    return False
    except (ExprError, TypeError, ValueError, ZeroDivisionError):
        return False
    return True


def fitted(
    spec: Spec, source: str, size: str, value: int, reach: tuple[extents.Analysis | None, dict[str, Arg]] | None = None
) -> dict[str, int] | None:
    """The sizes that change when `size` is raised to `value`: where the kernel's reach then leaves
    an array, the other sizes no launch spans raised by the same factor (a row length with its row);
    then the sizes left as they were halved, the largest first, until the arrays fit the memory
    bound (CASE_BYTES, or twice the spec's arrays, at most kernel/strengthen.py's) and the launch's
    items times `value` (a loop to it in each) are at most WORK. None where
    no such sizes are valid. `reach`: _reach's answer, where the caller has it."""
    an, params = reach or _reach(spec, source)
    dims = set().union(set(), *(_names_of(p) for p in spec.problem_size))
    used = _used_sizes(spec)
    sizes = {**spec.sizes, size: value}
    if not _within(spec, an, params, sizes):
        factor = value / spec.sizes[size]
        sizes = {n: math.ceil(v * factor) if n in used and n not in dims and n != size else v for n, v in sizes.items()}
    others = [n for n in used if sizes[n] == spec.sizes[n] and sizes[n] > _FILTER]
    budget = min(_BUDGET, max(CASE_BYTES, 2 * _bytes(spec, spec.sizes)))

    def over(at: dict[str, int]) -> bool:
        return _bytes(spec, at) > budget or value * math.prod(at[n] for n in dims if n in at) > WORK

    while over(sizes) and any(sizes[n] > 1 for n in others):
        largest = max(others, key=lambda n: sizes[n])  # one at a time: a small count of bands or rows stays
        sizes = {**sizes, largest: max(1, sizes[largest] // 2)}
    if over(sizes) or not _valid_at(spec, sizes) or not _within(spec, an, params, sizes):
        return None
    return {n: v for n, v in sizes.items() if v != spec.sizes[n]}


def _names_of(text: Any) -> set[str]:
    try:
        return names_in(text) if isinstance(text, str) else set()
    except ExprError:
        return set()


def wide_value_cases(spec: Spec, source: str) -> list[dict[str, Any]]:
    """Sizes raised so that indices the user's Python makes below a clamp, or a loop's counter kept
    as a value, pass 2**17 (kernel/strengthen_common.py's _raised_past_16_bits), each within the memory bound."""
    code = kernel_code(source, spec.kernel_base_name()) if source else ""
    if not code or len(code) > _CODE_MAX:
        return []
    params = _params(spec, source)  # the source's kernels found once, after the cheap checks (a large file)
    out: list[dict[str, Any]] = []
    found = [(f"`{a}` above 16 bits (the kernel clamps it to `{b}`; the user's Python makes it at these sizes)", s, a)
             for a, b, s in _clamped_bounds(code, params)]  # fmt: skip
    found += [(f"`{c}` above 16 bits (a loop's counter to `{b}` kept as a value)", s, "")
              for c, b, s in _kept_counters(code, params)]  # fmt: skip
    reach = _reach(spec, source, params) if found else None
    for what, bound, made in found[:_SITES_MAX]:
        size, value = _raised_past_16_bits(spec, bound)
        wide = fitted(spec, source, size, value, reach) if size else None
        if wide and not any(c["sizes"] == wide for c in out):
            said = ", ".join(f"{n}={v}" for n, v in wide.items())
            # the array the user's Python makes anew at these sizes is named, unchanged: it is reached (kept_as_given)
            out.append({"label": f"{said}: {what}", "sizes": wide, "args": {made: {}} if made else {}})
    return out


_WARPS = re.compile(r"__ballot_sync|__shfl\w*_sync|threadIdx\.x\s*(?:%\s*(?:32|warpSize)\b|&\s*31\b)")
WARP = 32


def warp_edge_cases(spec: Spec, source: str) -> list[dict[str, Any]]:
    """For a kernel that works in warps over the size its launch spans on x with a thread per element
    (`n`, a scalar passed it): n one past a multiple of 32 above the smallest it is checked at, alone
    and with the scalar one less (kernel/strengthen_common.py's bound case at that size)."""
    code = kernel_code(source, spec.kernel_base_name()) if source else ""
    first = spec.problem_size[0].strip() if spec.problem_size and isinstance(spec.problem_size[0], str) else ""
    if not _WARPS.search(code) or first not in spec.sizes or spec.grid_div_x == []:
        return []
    if not any(not a.is_array and a.value == first for a in spec.args):
        return []
    smallest = min([spec.sizes[first], *(int(e["sizes"].get(first, spec.sizes[first])) for e in spec.extra_sizes())])
    value = WARP * math.ceil(smallest / WARP) + 1
    if not _valid_at(spec, {**spec.sizes, first: value}):
        return []
    out: list[dict[str, Any]] = [
        {"label": f"{first}={value}: one thread in range in its last warp of {WARP}", "sizes": {first: value}}
    ]
    less = {
        n: change
        for case in _bound_cases(spec)
        for n, change in case["args"].items()
        if change.get("value") == f"{first} - 1"
    }
    if less:
        said = ", ".join(f"`{n}` = {first} - 1" for n in less)
        label = f"{first}={value}, {said}: whole warps, the next warp's first thread at the bound"
        out.append({"label": label, "sizes": {first: value}, "args": less})
    return out
