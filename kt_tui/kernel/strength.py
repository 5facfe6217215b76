"""How much a check can prove, from arrays alone (numpy only, no GPU): an output that is constant,
equal to its initial contents or equal to an input proves nothing when a candidate matches it;
arguments the original changed, against the ones the spec declares as outputs."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..words import counted

VACUOUS = "vacuous"
OK = "ok"
UNCHECKED = "unchecked"


def _value(x: Any) -> str:
    x = x.item() if hasattr(x, "item") else x
    return f"{x:.6g}" if isinstance(x, float) else str(x)


CHUNK = 1 << 20  # elements compared at once: big arrays in cache-sized pieces, and the first difference ends it


def same(a: np.ndarray, b: np.ndarray, tol: tuple[float, float] = (0.0, 0.0)) -> bool:
    """Equal within (atol, rtol), NaN equal to NaN; arrays of other sizes are never the same."""
    a, b = np.asarray(a).reshape(-1), np.asarray(b).reshape(-1)
    if a.size != b.size:
        return False
    floating = np.issubdtype(a.dtype, np.floating) or np.issubdtype(b.dtype, np.floating)
    for start in range(0, a.size, CHUNK):
        x, y = a[start : start + CHUNK], b[start : start + CHUNK]
        if floating and tol == (0.0, 0.0):
            if not np.array_equal(x, y, equal_nan=True):
                return False
        elif floating:
            with np.errstate(invalid="ignore", over="ignore"):
                if not np.allclose(
                    x.astype(np.float64), y.astype(np.float64), atol=tol[0], rtol=tol[1], equal_nan=True
                ):
                    return False
        elif not np.array_equal(x, y):
            return False
    return True


def constant(a: np.ndarray) -> bool:
    """Every element the same value (NaN counts as one value); a single element is not constant."""
    a = np.asarray(a).reshape(-1)
    if a.size < 2:
        return False
    nan = np.issubdtype(a.dtype, np.floating) and bool(np.isnan(a[0]))
    for start in range(0, a.size, CHUNK):
        part = a[start : start + CHUNK]
        if not (np.isnan(part).all() if nan else (part == a[0]).all()):
            return False
    return True


def weak_output(
    name: str,
    out: np.ndarray,
    initial: np.ndarray | None,
    inputs: dict[str, np.ndarray],
    tol: tuple[float, float] = (0.0, 0.0),
) -> str:
    """Why the output `name` proves nothing ("" when it may): constant, its initial contents, an input."""
    out = np.asarray(out).reshape(-1)
    if constant(out):
        return f"`{name}` is {_value(out[0])} everywhere ({counted(out.size, 'element')})"
    if initial is not None and same(out, initial, tol):
        return f"`{name}` still holds its initial contents: the kernel leaves it unchanged"
    for other, value in inputs.items():
        if other != name and np.asarray(value).size == out.size and same(out, value, tol):
            return f"`{name}` equals the input `{other}`"
    return ""


def weak_outputs(
    outputs: dict[str, np.ndarray], before: dict[str, np.ndarray], tolerances: dict[str, tuple[float, float]]
) -> list[str]:
    """The reasons, one per output that proves nothing. `before`: every array argument before the
    original ran (its initial contents and the inputs)."""
    inputs = {k: v for k, v in before.items() if k not in outputs}
    reasons = []
    for name, out in outputs.items():
        why = weak_output(name, out, before.get(name), inputs, tolerances.get(name, (0.0, 0.0)))
        if why:
            reasons.append(why)
    return reasons


def mutant_matches(
    reference: dict[str, np.ndarray], mutant: dict[str, np.ndarray], tolerances: dict[str, tuple[float, float]]
) -> list[str]:
    """The outputs a do-nothing kernel (its body emptied) gets right: the check cannot tell them apart."""
    return [
        f"`{name}` is the same when the kernel's body is emptied"
        for name, ref in reference.items()
        if name in mutant and same(mutant[name], ref, tolerances.get(name, (0.0, 0.0)))
    ]


def changed(before: dict[str, np.ndarray], after: dict[str, np.ndarray]) -> list[str]:
    """The arguments whose contents the run changed (exactly: NaN equal to NaN), in `before`'s order."""
    return [name for name, b in before.items() if name in after and not same(b, after[name])]


def output_fixes(declared: list[str], arrays: list[str], changed_names: list[str]) -> list[str]:
    """What the spec's outputs should say, from what the original's run changed."""
    fixes = [
        f"`{n}` changed but is not in outputs: add it to [outputs] (output = true)"
        for n in arrays
        if n in changed_names and n not in declared
    ]
    fixes += [
        f"`{n}` is declared an output but the original never changed it: make it an input "
        "(output = false), or give it other initial contents"
        for n in declared
        if n not in changed_names
    ]
    return fixes


def verdict(reasons: list[str], fixes: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    """The check's state as stored and shown: vacuous with why, or ok."""
    state: dict[str, Any] = {"state": VACUOUS if reasons else OK, "why": "; ".join(reasons), "fixes": list(fixes or [])}
    state.update(extra)
    return state


def unchecked(why: str, fixes: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {"state": UNCHECKED, "why": why, "fixes": list(fixes or []), **extra}
