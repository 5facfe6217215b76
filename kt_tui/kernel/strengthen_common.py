"""What kernel/strengthen.py's stronger cases and kernel/strengthen_code.py's share: the sizes a spec
uses, its arrays' bytes, a size raised until a bound passes 2**17, the launch's sizes, the scalars
told one less than their size, the float inputs drawn at random."""

from __future__ import annotations

from typing import Any

from .expr import ExprError, evaluate, names_in
from .spec_keys import SPIKES
from .spec_model import Arg, Spec, _itemsize

_FILTER = 8  # a size this small or smaller is a filter width, a factor, a radius: not a problem size


WIDE = 1 << 16  # an index this large or larger: a mask of its low 16 bits, or a 16-bit index, bites


INT_MAX = (1 << 31) - 1  # a bound past this wraps where the kernel computes it in int

_BUDGET = 256 << 20  # bytes of all arrays a wider case may take, or twice the spec's where that is more


def _int_type(dtype: str) -> bool:
    return dtype.startswith(("int", "uint"))


def _used_sizes(spec: Spec) -> list[str]:
    """The sizes the launch or the arguments read, in the spec's order."""
    used: set[str] = set()
    texts = [*spec.problem_size, *(a.size for a in spec.args), *(a.value for a in spec.args)]
    for t in texts:
        if isinstance(t, str):
            try:
                used |= names_in(t)
            except ExprError:
                continue
    return [n for n in spec.sizes if n in used]


def _raised_past_16_bits(spec: Spec, bound: str) -> tuple[str, int]:
    """The one size a bound names (`cols`, `max_frames + 1`, `n // 2 + 2`) and the value of it, from
    2**17 + 1 up by doubling, that takes the bound past 2**17 (half the values drawn above 16 bits),
    where the bound is at most 2**16 at the spec's sizes; ("", 0) otherwise. A bound that grows faster
    than its size (`m * (m - 1) / 2`) and there leaves an int: the least value past the spec's that takes
    it past 2**17 (at 131073 the kernel's int bound wraps)."""
    if bound in spec.sizes:
        return (bound, 2 * WIDE + 1) if spec.sizes[bound] <= WIDE else ("", 0)
    named = _names(bound) & set(spec.sizes)
    if len(named) != 1:
        return "", 0
    size = named.pop()
    try:
        if evaluate(bound, spec.sizes) > WIDE:
            return "", 0
        value = 2 * WIDE + 1
        while evaluate(bound, {**spec.sizes, size: value}) <= 2 * WIDE and value < 1 << 24:
            value = 2 * value - 1
        if evaluate(bound, {**spec.sizes, size: value}) <= 2 * WIDE:
            return "", 0
        if evaluate(bound, {**spec.sizes, size: value}) > INT_MAX:
            below = spec.sizes[size]  # its bound at most 2**16: the least value past 2**17 lies above it
            while value - below > 1:
                middle = (below + value) // 2
                if evaluate(bound, {**spec.sizes, size: middle}) > 2 * WIDE:
                    value = middle
                else:
                    below = middle
        return (size, value) if 2 * WIDE < evaluate(bound, {**spec.sizes, size: value}) <= INT_MAX else ("", 0)
    except (ExprError, TypeError, ValueError, ZeroDivisionError, OverflowError):
        return "", 0


def _bytes(spec: Spec, sizes: dict[str, Any]) -> int:
    total = 0
    for a in spec.args:
        if a.is_array:
            try:
                total += int(evaluate(a.size, sizes)) * a.lanes * _itemsize(a.dtype)
            except (ExprError, ValueError):
                continue
    return total


def _names(text: Any) -> set[str]:
    try:
        return names_in(text) if isinstance(text, str) else set()
    except ExprError:
        return set()


def _launch_dims(spec: Spec) -> dict[str, bool]:
    """The sizes the launch spans (a problem_size that is one name), each with whether the launch
    makes exactly one block per item on that axis (grid_div = []: no guard is ever needed there)."""
    out = {}
    for axis, p in zip("xyz", spec.problem_size, strict=False):
        if isinstance(p, str) and p.strip() in spec.sizes:
            out[p.strip()] = getattr(spec, f"grid_div_{axis}") == []
    return out


def _bound_cases(spec: Spec) -> list[dict[str, Any]]:
    """Integer scalars passed a size (`n = "n"`) told one less than it, while the arrays and the launch
    keep the size: the element past the bound is then a real one, not the guard zone's poison (a NaN
    that fails every comparison: `ixj <= n` in a compare-exchange, `c <= nclusters` in an argmin pass
    any check that reads it from the zone), and a thread of the launch lies past the bound. Sizes of
    a launch of one block per item are left out (a kernel there needs no guard against the count), and
    so are sizes of no input array that an output's length uses (a pitch, a row length of the outputs:
    one less would overlap the rows a kernel writes)."""
    dims = _launch_dims(spec)
    inputs = set().union(set(), *(_names(a.size) for a in spec.args if a.is_array and not a.output))
    outputs = set().union(set(), *(_names(a.size) for a in spec.args if a.is_array and a.output))
    told = {}
    for a in spec.args:
        size = a.value.strip() if isinstance(a.value, str) else ""
        if a.is_array or not _int_type(a.dtype) or size not in spec.sizes or spec.sizes[size] < 2:
            continue
        if (size in dims and not dims[size]) or (size not in dims and size in inputs and size not in outputs):
            told[a.name] = size
    if not told:
        return []
    label = ", ".join(f"`{n}` = {size} - 1" for n, size in told.items())
    return [
        {
            "label": f"{label} (one less than its arrays and launch)",
            "args": {n: {"value": f"{size} - 1"} for n, size in told.items()},
        }
    ]


_DRAWN = ("random", "uniform", "normal", "positive")


def _float_inputs(spec: Spec, outputs: bool = False) -> list[Arg]:
    """Float arrays drawn at random: the inputs, and with `outputs` those read and written too."""
    return [a for a in spec.args if a.is_array and (outputs or not a.output) and a.dtype in SPIKES and a.init in _DRAWN]
