"""Stronger inputs for a check that wrong kernels survive (issue 35, item 2): from the spec (and the
kernel's parameters), the cases that could tell more kernels apart — values over an integer type's
whole range (all 256 byte values, negatives, high bits), row offsets with rows of varied lengths,
distinct values for sizes that are equal (fw = fh, w = h) and filters larger than 2, non-square odd
sizes, a second seed. A case is the spec's sizes and arguments with some values changed;
gpu/checkrun.py keeps one only when the original still runs clean with it (memcheck), its outputs
stay non-degenerate and it kills a surviving mutant. Kept cases are run by every later check, as the
checks at other sizes are (engine/checks.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..words import counted
from .expr import ExprError, evaluate, names_in
from .spec_keys import ROW_LENGTHS, SPIKES
from .spec_model import Arg, Spec, _itemsize, _valid_at, int_range, random_bounds
from .strengthen_code import made_tie_cases, warp_edge_cases, wide_value_cases
from .strengthen_common import (
    _BUDGET,
    _FILTER,
    WIDE,
    _bound_cases,
    _bytes,
    _float_inputs,
    _int_type,
    _names,
    _raised_past_16_bits,
    _used_sizes,
)
from .strengthen_shapes import shape_cases

MAX_CASES = 9
NARROW = 1 << 15  # values within +-this fit a 16-bit type


def case_spec(spec: Spec, case: dict[str, Any]) -> Spec:
    """The spec with a case's sizes and argument values (arguments it names that the spec lacks are
    left out: a generated kernel keeps the original's arguments)."""
    changes = dict(case.get("args") or {})
    args = [replace(a, **changes[a.name]) if a.name in changes else a for a in spec.args]
    return replace(spec, sizes={**spec.sizes, **dict(case.get("sizes") or {})}, args=args)


def _bounded_by_sizes(a: Any) -> bool:
    """An index array's values are bounded by a size (`high = "cols"`): other values leave the arrays."""
    return any(isinstance(v, str) and names_in(v) for v in (a.low, a.high))


def _value_cases(spec: Spec) -> list[dict[str, Any]]:
    out = []
    for a in spec.args:
        if not a.is_array or a.output or a.init not in ("random", "uniform", "positive"):
            continue
        try:
            low, high = (evaluate(v, spec.sizes) if v is not None else None for v in (a.low, a.high))
        except ExprError:
            continue
        least, most = int_range(a.dtype) if _int_type(a.dtype) else (0, 0)
        bits = int("".join(c for c in a.dtype if c.isdigit()))
        if _bounded_by_sizes(a):  # an index: only a narrow type's whole range (a kernel that clamps takes it)
            if _int_type(a.dtype) and bits <= 16 and (low, high) != (least, most + 1):
                label = f"`{a.name}` over the whole range of {a.dtype}, past its bound `{a.high}`"
                out.append({"label": label, "args": {a.name: {"low": least, "high": most + 1}}})
            continue
        if _int_type(a.dtype):
            if bits <= 16 and (low, high) != (least, most + 1):
                what = f"all {most - least + 1} values of {a.dtype}" if bits == 8 else f"the whole range of {a.dtype}"
                out.append({"label": f"`{a.name}` over {what}", "args": {a.name: {"low": least, "high": most + 1}}})
                continue
            if least < 0 and (low is None or low >= 0):
                top = high if isinstance(high, int) and high > 0 else 100
                out.append({"label": f"`{a.name}` with negative values", "args": {a.name: {"low": -top, "high": top}}})
            drawn = random_bounds(a, spec.sizes)
            if bits > 16 and least < 0 and -NARROW <= drawn[0] and drawn[1] <= NARROW:  # a 16-bit copy holds them all
                label = f"`{a.name}` above 16 bits (within +-{2 * WIDE})"
                out.append({"label": label, "args": {a.name: {"low": -2 * WIDE, "high": 2 * WIDE}}})
            elif least == 0 and (high is None or high <= 2 ** (bits - 1)):
                out.append(
                    {
                        "label": f"`{a.name}` with the high bits set",
                        "args": {a.name: {"low": 2 ** (bits - 1), "high": most + 1}},
                    }
                )
        elif a.dtype.startswith("float") and (a.init == "positive" or (low is not None and low >= 0)):
            wide = high if isinstance(high, (int, float)) and high > 0 else 1.0
            out.append(
                {
                    "label": f"`{a.name}` with negative values",
                    "args": {a.name: {"init": "uniform", "low": -wide, "high": wide}},
                }
            )
    return out


def _shifted_together_cases(spec: Spec) -> list[dict[str, Any]]:
    """Inputs of one 8- or 16-bit integer type drawn over one narrow range (two sequences' residues
    in [0, 4)): all of them moved together to the values with the type's top bit set ([128, 132) for
    uint8; the most negative ones for a signed type). Values still meet as often as in the spec (a
    residue equal to another's), and a kernel that reads them with the other signedness or narrower
    sees other values; drawing one of them over the whole range alone (_value_cases) makes the
    meetings rare, and a check of equal values then sees none."""
    groups: dict[tuple[str, int, int], list[str]] = {}
    for a in spec.args:
        if not a.is_array or a.output or a.init not in ("random", "uniform") or not _int_type(a.dtype):
            continue
        if _itemsize(a.dtype) > 2 or _bounded_by_sizes(a):
            continue
        try:
            low, high = (int(v) for v in random_bounds(a, spec.sizes))
        except (ExprError, TypeError, ValueError):
            continue
        least, most = int_range(a.dtype)
        if 0 < high - low and 4 * (high - low) <= most - least + 1:
            groups.setdefault((a.dtype, low, high), []).append(a.name)
    out = []
    for (dtype, low, high), names in groups.items():
        least, most = int_range(dtype)
        base = least if least < 0 else (most + 1) // 2
        if len(names) < 2 or base <= low < base + (most - least + 1) // 2:
            continue
        span = {"low": base, "high": base + high - low}
        said = ", ".join(f"`{n}`" for n in names)
        label = f"{said} drawn together over [{base}, {base + high - low}) (their range with the top bit set)"
        out.append({"label": label, "args": dict.fromkeys(names, span)})
    return out


def _tie_cases(spec: Spec) -> list[dict[str, Any]]:
    """Float arrays drawn at random (those read and written too) as whole numbers -2 .. 2 and float
    scalars 1: values equal to each other, to the constants a kernel compares them with (0, 1, 2) and
    to its scalars (a box, a threshold), so that `<` and `<=` on data (a distance against the best so
    far, a position against the box) meet the tie that random floats never draw; a tiny scalar added
    (an epsilon) becomes one that shows."""
    floats = [a.name for a in _float_inputs(spec, outputs=True)]
    if not floats:
        return []
    scalars = [a.name for a in spec.args if not a.is_array and a.dtype in SPIKES and isinstance(a.value, (int, float))]
    label = f"{', '.join(f'`{n}`' for n in floats)} as whole numbers -2 .. 2" + (
        f", {', '.join(f'`{n}`' for n in scalars)} = 1" if scalars else ""
    )
    changes: dict[str, dict[str, Any]] = {n: {"init": "whole", "low": -2, "high": 3} for n in floats}
    return [{"label": f"{label} (ties)", "args": {**changes, **{n: {"value": 1.0} for n in scalars}}}]


def _spike_cases(spec: Spec) -> list[dict[str, Any]]:
    """Float inputs laid out as rows (size `rows * cols`, the launch over rows) with one large value in
    each row (kernel/inputs.py spiked_rows): a softmax subtracts its row's max only for stability, so
    a max that misses an element, or reads the next row's, changes the outputs only when one value
    stands out and exp overflows without the right max."""
    dims = set().union(*(_names(p) for p in spec.problem_size)) if spec.problem_size else set()
    spiked = {}
    for a in _float_inputs(spec):
        factors = [f.strip() for f in str(a.size).split("*")]
        if len(factors) != 2 or not all(f in spec.sizes for f in factors):
            continue
        widths = [f for f in factors if f not in dims]
        if len(widths) == 1 and len(set(factors) & dims) == 1 and spec.sizes[widths[0]] >= 3:
            spiked[a.name] = widths[0]
    if not spiked:
        return []
    label = f"{', '.join(f'`{n}`' for n in spiked)} with one large value in each row of `{next(iter(spiked.values()))}`"
    return [{"label": label, "args": {n: {"init": "spikes", "value": w} for n, w in spiked.items()}}]


def _offset_cases(spec: Spec) -> list[dict[str, Any]]:
    """Row offsets drawn as one element per row (`range`) or at random below an array's length, made
    into offsets with rows of every length in ROW_LENGTHS: a warp reduction cut in half, a loop over
    a row cut short, a kernel that never sees an empty row pass rows of one element. Offsets are an
    integer input one element longer than the rows they delimit (another array's length, or a
    scalar's value); they keep the values' bounds (a range's: its own length)."""
    out = []
    for a in spec.args:
        if not (a.is_array and not a.output and _int_type(a.dtype) and a.lanes == 1 and delimits_rows(spec, a)):
            continue
        low: Any
        high: Any
        if a.init == "range":
            low, high = 0, a.size
        elif a.init in ("random", "uniform", "positive") and _bounded_by_sizes(a):
            low, high = a.low if a.low is not None else 0, a.high
        else:
            continue
        rows = ", ".join(map(str, ROW_LENGTHS[:-1])) + f" and {ROW_LENGTHS[-1]}"
        out.append(
            {
                "label": f"`{a.name}` as row offsets, rows of {counted(rows, 'element')}",
                "args": {a.name: {"init": "offsets", "low": low, "high": high}},
            }
        )
    return out


def delimits_rows(spec: Spec, offsets: Arg) -> bool:
    """Whether the array is one element longer than something it can delimit: another array's
    length or an integer scalar's value, at the spec's sizes and at others (not by coincidence)."""
    counts: list[Any] = [b.size for b in spec.args if b.is_array and b is not offsets]
    counts += [b.value for b in spec.args if not b.is_array and _int_type(b.dtype)]
    other = {k: 2 * v + 3 for k, v in spec.sizes.items()}
    try:
        wanted = [evaluate(offsets.size, at) - 1 for at in (spec.sizes, other)]
    except ExprError:
        return False
    for count in counts:
        try:
            if [evaluate(count, at) for at in (spec.sizes, other)] == wanted:
                return True
        except ExprError:
            continue
    return False


def _odd(v: int) -> int:
    return max(3, v if v % 2 else v - 1)


def _size_cases(spec: Spec) -> list[dict[str, Any]]:
    """Sizes that are equal told apart (fw != fh, w != h, filters larger than 2), non-square and odd."""
    names = _used_sizes(spec)
    out = []
    small = [n for n in names if spec.sizes[n] <= _FILTER]
    big = [n for n in names if spec.sizes[n] > _FILTER]
    if small and (len({spec.sizes[n] for n in small}) < len(small) or min(spec.sizes[n] for n in small) <= 2):
        change = {n: 5 - 2 * (k % 2) + 2 * (k // 2) for k, n in enumerate(small)}  # 5, 3, 7, 5, ...
        if change != {n: spec.sizes[n] for n in small}:
            out.append(change)
    dims = [n for n in big if any(n in _names(p) for p in spec.problem_size)]
    if len(dims) >= 2 and len({spec.sizes[n] for n in dims}) < len(dims):
        out.append({n: _odd(spec.sizes[n] // 3 - 14 * k) for k, n in enumerate(dims)})
    cases = []
    for sizes in out:
        if _valid_at(spec, {**spec.sizes, **sizes}):
            label = ", ".join(f"{n}={v}" for n, v in sizes.items())
            cases.append({"label": label, "sizes": sizes})
    return cases


def _wide_index_cases(spec: Spec) -> list[dict[str, Any]]:
    """An index array bounded by one size (`col_idx` in [0, cols)) whose values all fit 16 bits: that
    size raised above 2**16 (odd), so that an index masked to its low 16 bits (`& 0xffff`) or held in
    16 bits reads another element (sizes tied to it kept so: widened()). Only within the memory
    budget; memcheck decides whether the original takes it."""
    out = []
    for a in spec.args:
        if not a.is_array or a.output or not _int_type(a.dtype) or not isinstance(a.high, str):
            continue
        size, value = _raised_past_16_bits(spec, a.high.strip())
        wide = widened(spec, size, value) if size else None
        if wide:
            said = ", ".join(f"{n}={v}" for n, v in wide.items())
            out.append({"label": f"{said}: `{a.name}` above 16 bits", "sizes": wide})
    return out


def _wide_output_cases(spec: Spec) -> list[dict[str, Any]]:
    """An output of fewer than 2**16 elements whose length is one size the launch does not span (a
    histogram's `nbins`): its elements are written at computed indices, so that size raised above
    2**16 (widened()) lets an index held in 16 bits wrap, and a 32-bit product of a value and that
    size (`values[i] * nbins`, meant in 64 bits) overflow."""
    dims = set().union(*(_names(p) for p in spec.problem_size)) if spec.problem_size else set()
    out = []
    for a in spec.args:
        length = a.size.strip() if isinstance(a.size, str) else ""
        if not (a.is_array and a.output) or length not in spec.sizes or length in dims or spec.sizes[length] > WIDE:
            continue
        wide = widened(spec, length, 2 * WIDE + 1)
        if wide and length not in _names(spec.smem_size):  # a block's copy of it would not fit shared memory
            said = ", ".join(f"{n}={v}" for n, v in wide.items())
            out.append({"label": f"{said}: `{a.name}` longer than 16 bits index", "sizes": wide})
    return out


def widened(spec: Spec, name: str, value: int) -> dict[str, int] | None:
    """The sizes that change when size `name` is raised to `value`: every size at least as large at
    the spec's sizes is raised by as much (a row length padded to Vp >= V stays at least V: a kernel
    that reads V elements of rows Vp apart stays within its arrays), then the problem's other
    dimensions are halved until the arrays fit the budget; where that does not fit (a larger size that
    is another dimension: nrows raised with ncols), `name` alone is raised and the others halved.
    None when no such sizes are valid."""
    old = spec.sizes[name]
    budget = max(_BUDGET, 2 * _bytes(spec, spec.sizes))
    for together in (True, False):
        sizes = {n: v + value - old if (v >= old if together else n == name) else v for n, v in spec.sizes.items()}
        dims = {
            n for n in _used_sizes(spec) if sizes[n] == spec.sizes[n] and any(n in _names(p) for p in spec.problem_size)
        }
        while _bytes(spec, sizes) > budget and any(sizes[n] > 1 for n in dims):
            sizes = {n: max(1, v // 2) if n in dims else v for n, v in sizes.items()}
        if _bytes(spec, sizes) <= budget and _valid_at(spec, sizes):
            return {n: v for n, v in sizes.items() if v != spec.sizes[n]}
    return None


def _above_range_cases(spec: Spec) -> list[dict[str, Any]]:
    """Float inputs the spec draws within the unit interval (samples in [0, 1), a fraction) drawn over
    [low, 2 * high - low), in one case: values at and past the top the spec promises, where a kernel
    that maps a sample to a bin (`min((int)(v * nbins), nbins - 1)`) clamps it to the last one. Only
    the unit interval: past the top of a position or a size (a particle's x in [0, W)) most kernels
    leave their arrays, and a case the original runs out of bounds on is only refused by memcheck
    after it ran."""
    changes, said = {}, []
    for a in _float_inputs(spec):
        if a.init not in ("random", "uniform", "positive") or a.low is None or a.high is None:
            continue
        try:
            low, high = (evaluate(v, spec.sizes) for v in (a.low, a.high))
        except ExprError:
            continue
        if 0 <= low < high <= 1:
            top = high + (high - low)
            changes[a.name] = {"init": "uniform", "low": low, "high": top}
            said.append(f"`{a.name}` over [{low:g}, {top:g})")
    if not changes:
        return []
    return [{"label": f"{', '.join(said)}: past the top of the unit interval", "args": changes}]


TINY = 2.0**-16  # floats this small: their sums of products (< 2**-24 per pair) vanish beside a constant 1


def _tiny_cases(spec: Spec) -> list[dict[str, Any]]:
    """Where an output is an integer (an index chosen by comparing sums: the nearest centroid, an
    argmin), every float input drawn from a normal (no range the kernel relies on) drawn within
    +-TINY: the sums the kernel compares stay apart, but a constant added to each (`float dist =
    1.0f` for 0.0f) swamps them, as it does not values of the size they have near 1."""
    if not any(_int_type(a.dtype) for a in spec.outputs()):
        return []
    floats = [
        a.name
        for a in _float_inputs(spec)
        if a.init == "normal" or (a.init == "random" and a.low is None and a.high is None)
    ]
    if not floats:
        return []
    label = f"{', '.join(f'`{n}`' for n in floats)} within +-2**-16 (sums a constant would swamp)"
    return [{"label": label, "args": {n: {"init": "uniform", "low": -TINY, "high": TINY} for n in floats}}]


def _filled_pair_cases(spec: Spec) -> list[dict[str, Any]]:
    """An integer input the spec fills with one value (`seg_begin` all zeros) beside one of the same
    length and type drawn at random (`seg_end`): a begin/end pair. A kernel only ever sees the one
    value, so holding it in 16 bits or masking it passes; both drawn over [0, 2**17) tell those."""
    drawn = [
        a
        for a in spec.args
        if a.is_array and not a.output and _int_type(a.dtype) and a.init in ("random", "uniform", "positive")
    ]
    out = []
    for a in spec.args:
        if not (a.is_array and not a.output and _int_type(a.dtype) and a.init in ("zeros", "ones", "constant")):
            continue
        pair = next((b for b in drawn if b.size == a.size and b.dtype == a.dtype), None)
        if pair is None or int_range(a.dtype)[1] <= 2 * WIDE:
            continue
        wide = {"init": "random", "low": 0, "high": 2 * WIDE}
        label = f"`{a.name}` (all {a.init} in the spec) and `{pair.name}` drawn over [0, {2 * WIDE})"
        out.append({"label": label, "args": {a.name: wide, pair.name: {"low": 0, "high": 2 * WIDE}}})
    return out


def _scalar_cases(spec: Spec) -> list[dict[str, Any]]:
    """Scalars given equal numbers (not sizes) made distinct: a drafted fw = fh = 2."""
    nums = {
        a.name: a.value for a in spec.args if not a.is_array and isinstance(a.value, int) and 0 < a.value <= _FILTER
    }
    equal = [n for n in nums if list(nums.values()).count(nums[n]) > 1 or nums[n] <= 2]
    if not equal:
        return []
    values = {n: 5 - 2 * (k % 2) + 2 * (k // 2) for k, n in enumerate(equal)}
    label = ", ".join(f"{n}={v}" for n, v in values.items())
    return [{"label": label, "args": {n: {"value": v} for n, v in values.items()}}]


def _float_scalar_cases(spec: Spec) -> list[dict[str, Any]]:
    """Float scalars given the same value (min_x = min_y = min_z = 0) made distinct: a kernel that
    uses one for another passes while they are equal. Each new value differs, in its own type, from
    every float scalar's value; none where that cannot be had."""
    floats = [
        a for a in spec.args
        if not a.is_array and a.dtype.startswith("float") and isinstance(a.value, (int, float))
        and not isinstance(a.value, bool)
    ]  # fmt: skip
    import numpy as np  # here: numpy only once a check draws its cases (the app starts without it)

    values = [float(a.value) for a in floats]  # type: ignore[arg-type]
    equal = [a for a, v in zip(floats, values, strict=True) if values.count(v) > 1]
    if not equal:
        return []
    taken = {float(np.dtype(a.dtype).type(v)) for a, v in zip(floats, values, strict=True)}
    changed: dict[str, float] = {}
    for k, a in enumerate(equal):
        v = float(a.value) + 0.25 * (k + 1) * max(1.0, abs(float(a.value)))  # type: ignore[arg-type]
        cast = float(np.dtype(a.dtype).type(v))
        if cast in taken or not np.isfinite(cast):
            return []
        taken.add(cast)
        changed[a.name] = cast
    label = ", ".join(f"`{n}` = {v:g}" for n, v in changed.items()) + " (equal in the spec, told apart)"
    return [{"label": label, "args": {n: {"value": v} for n, v in changed.items()}}]


def _seed_case(spec: Spec) -> list[dict[str, Any]]:
    seeded = [a for a in spec.args if a.is_array and a.init in ("random", "uniform", "normal", "positive", "offsets")]
    if not seeded:
        return []
    return [{"label": "a second seed", "args": {a.name: {"seed": a.seed + 1000} for a in seeded}}]


def candidates(spec: Spec, source: str = "") -> list[dict[str, Any]]:
    """The cases to try, each {"label", "sizes"?, "args"?}: those the kernel's code calls for
    (`source`: kernel/strengthen_shapes.py) first, then values over the types' range, row offsets
    with varied rows, indices, outputs' lengths and values kept or clamped (kernel/strengthen_code.py)
    above 16 bits, sizes, warps' edges and scalars told apart, rows with one large value, float values
    that tie (the user's Python's rounded), size scalars one less than their arrays, a filled begin
    array with its end drawn wide, floats past their range's top, tiny floats, then a second seed
    (those of session 11 after the ones that killed survivors on an H100 before them); at most
    MAX_CASES. None for file inputs; the user's Python's other inputs are kept as they are
    (kept_as_given)."""
    if any(a.init == "file" for a in spec.args):
        return []
    out = [
        *shape_cases(spec, source),
        *_value_cases(spec),
        *_shifted_together_cases(spec),
        *_offset_cases(spec),
        *_wide_index_cases(spec),
        *_wide_output_cases(spec),
        *wide_value_cases(spec, source),
        *_size_cases(spec),
        *warp_edge_cases(spec, source),
        *_scalar_cases(spec),
        *_float_scalar_cases(spec),
        *_spike_cases(spec),
        *_tie_cases(spec),
        *made_tie_cases(spec),
        *_bound_cases(spec),
        *_filled_pair_cases(spec),
        *_above_range_cases(spec),
        *_tiny_cases(spec),
        *_seed_case(spec),
    ]
    unique: list[dict[str, Any]] = []
    for case in out:
        case.setdefault("sizes", {})
        case.setdefault("args", {})
        if not any((case["sizes"], case["args"]) == (c["sizes"], c["args"]) for c in unique):
            unique.append(case)  # one run for the same inputs found by two rules
    return unique[:MAX_CASES]


SMALL_SHARE = 10  # a check size whose arrays take at most 1 / SMALL_SHARE of the spec's bytes is small


def cheap_first(spec: Spec, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`cases` each first at the small check sizes (the case's own sizes over each), then all of them
    at the spec's size, as before: the survivors meet every case within the strengthening budget, as
    the mutants meet the cheapest size first. At a large spec size one case's runs took the whole
    budget (crop_and_resize, 330 MB of arrays: about 0.4 s a run, 10 survivors), and the cases after it
    never ran; at a small check size a run takes milliseconds. Small: at most 1 / SMALL_SHARE of the
    spec's bytes (every such size, cheapest first: a random event, a tie among few boxes, is likelier
    over two), else the cheapest if it is smaller than the spec's; each of those marked "small". The
    spec's size still follows for the survivors no case killed (a random event likelier among more
    elements: gpu/mutants.py)."""
    full = _bytes(spec, spec.sizes)
    sizes = sorted((e["sizes"] for e in spec.extra_sizes()), key=lambda s: _bytes(spec, s))
    small = [s for s in sizes if _bytes(spec, s) * SMALL_SHARE <= full] or [
        s for s in sizes[:1] if _bytes(spec, s) < full
    ]
    out = []
    for base in small:
        for case in cases:
            own = case.get("sizes") or {}
            at = {**base, **own}
            if at == {**spec.sizes, **own} or not _valid_at(spec, at):
                continue
            said = ", ".join(f"{n}={v}" for n, v in base.items() if v != spec.sizes.get(n) and n not in own)
            out.append({**case, "label": f"{case['label']}, at {said}", "sizes": at, "small": True})
    return [*out, *cases]


def kept_as_given(spec: Spec, cases: Sequence[dict[str, Any]] = ()) -> str:
    """What no stronger case changes, for the survivors' line: inputs from files or the user's Python
    that none of `cases` draws again."""
    drawn = {name for case in cases for name in case.get("args") or {}}
    files = [f"`{a.name}`" for a in spec.args if a.init == "file" and a.name not in drawn]
    made = [
        f"`{a.name}` ({a.function})" for a in spec.args if a.init in ("function", "rounded") and a.name not in drawn
    ]
    if files:
        return f"inputs from files ({', '.join(files)}): no stronger inputs were drawn"
    if made:
        return (
            f"inputs the user's Python makes ({', '.join(made)}) are kept as they are: none stronger was drawn for them"
        )
    return ""


def check_entry(spec: Spec, case: dict[str, Any]) -> dict[str, Any]:
    """A kept case as a check at other sizes takes it: label, the sizes in full, the argument changes."""
    return {"label": case["label"], "sizes": {**spec.sizes, **case["sizes"]}, "args": case["args"]}
