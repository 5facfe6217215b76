"""A kernel's outputs compared with the reference outputs, per output argument: the verdict.

Both sides of the process wall use it: the GPU worker compares (gpu/device/session.py),
the engine words a stored verdict (failure_text) and finds the poison the original left (poisoned).
It imports numpy only, nothing of kt_tui, so importing it costs the app's process nothing more."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

import numpy as np

__all__ = ["EXCERPT", "Verdict", "compare", "compare_all", "failure_text", "poisoned", "value_text"]

EXCERPT = 2  # indices shown on each side of the first failing one


class Verdict(TypedDict):
    """One output's verdict, as the worker sends it and the store keeps it (JSON): the data of the
    UI's verdict table. excerpt rows are [index, got, expected], the values as text."""

    output: str
    ok: bool
    max_abs_err: float | None
    max_rel_err: float | None
    mismatches: int
    first_bad: int | None
    atol: float
    rtol: float
    excerpt: list[list[int | str]]
    reason: NotRequired[str]


def value_text(x: object) -> str:
    item = getattr(x, "item", None)
    x = item() if callable(item) else x
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def compare(name: str, ref: np.ndarray, out: np.ndarray | None, atol: float, rtol: float) -> Verdict:
    """One output's verdict: ok, max errors, mismatch count, the first failing index and an
    excerpt around it."""
    if out is None or out.shape != ref.shape:
        return {
            "output": name,
            "ok": False,
            "reason": "output missing or of another shape",
            "max_abs_err": None,
            "max_rel_err": None,
            "mismatches": int(ref.size),
            "first_bad": 0,
            "atol": atol,
            "rtol": rtol,
            "excerpt": [],
        }
    max_abs, max_rel, idx = _errors(ref, out, atol, rtol)
    verdict: Verdict = {
        "output": name,
        "ok": idx.size == 0,
        "max_abs_err": max_abs,
        "max_rel_err": max_rel,
        "mismatches": int(idx.size),
        "first_bad": int(idx[0]) if idx.size else None,
        "atol": atol,
        "rtol": rtol,
        "excerpt": [],
    }
    if idx.size:
        i = int(idx[0])
        verdict["reason"] = f"{name}[{i}] = {value_text(out.flat[i])}, expected {value_text(ref.flat[i])}"
        verdict["excerpt"] = [
            [j, value_text(out.flat[j]), value_text(ref.flat[j])]
            for j in range(max(i - EXCERPT, 0), min(i + EXCERPT + 1, ref.size))
        ]
    return verdict


CHUNK = 1 << 20  # elements compared at once: temporaries of a big array's comparison stay in cache


def _errors(ref: np.ndarray, out: np.ndarray, atol: float, rtol: float) -> tuple[float, float, np.ndarray]:
    """The largest absolute and relative errors, and the flat indices where `out` is off."""
    if np.iscomplexobj(ref) or np.iscomplexobj(out):  # each part compared as a float; an index names its element
        real = np.promote_types(ref.real.dtype, out.real.dtype)
        pairs = [np.ascontiguousarray(a, dtype=np.result_type(real, np.complex64)).view(real) for a in (ref, out)]
        max_abs, max_rel, idx = _errors(pairs[0], pairs[1], atol, rtol)
        return max_abs, max_rel, np.unique(idx // 2)
    if not np.issubdtype(ref.dtype, np.floating):
        idiff = np.abs(out.astype(np.int64) - ref.astype(np.int64))
        return (float(idiff.max()) if idiff.size else 0.0), 0.0, np.flatnonzero(idiff > atol)
    r, o = ref.reshape(-1), out.reshape(-1)
    if o.dtype == r.dtype and r.size <= KEPT_MAX and not ref.flags.writeable:
        got = _bounds(ref, atol, rtol).close(r, o)
        return _exact(ref, out, atol, rtol) if got is None else (*got, np.empty(0, np.intp))
    max_abs = max_rel = 0.0
    for start in range(0, r.size, CHUNK):  # the usual case, all close: a piece at a time
        close = _close_piece(r[start : start + CHUNK], o[start : start + CHUNK], atol, rtol)
        if close is None:
            return _exact(ref, out, atol, rtol)
        max_abs, max_rel = max(max_abs, close[0]), max(max_rel, close[1])
    return max_abs, max_rel, np.empty(0, np.intp)


KEPT_MAX = 1 << 24  # elements: a read-only reference up to this size keeps its bounds between comparisons


class _Bounds:
    """What comparing with one read-only reference needs that no output changes: the bound of each
    element (atol + rtol * |ref|) and its scale for the relative error; and the scratch arrays. A GPU
    worker compares every configuration's outputs with the same reference, and that was most of its
    CPU time (2.6x less this way: no temporaries, three passes fewer)."""

    def __init__(self, ref: np.ndarray, atol: float, rtol: float):
        r = ref.reshape(-1)
        with np.errstate(invalid="ignore", over="ignore"):
            scale = np.abs(r)
            self.bound = atol + rtol * scale
            self.scale = np.where(scale == 0, np.inf, scale)  # a zero reference gives relative error 0
        self.ref, self.infinite = ref, bool(np.isinf(r).any())
        self.diff, self.ok = np.empty_like(r), np.empty(r.shape, bool)
        self.lock = threading.Lock()

    def close(self, r: np.ndarray, o: np.ndarray) -> tuple[float, float] | None:
        """As _close_piece, over the whole output, without allocating."""
        if self.infinite or not r.size:
            return None if self.infinite else (0.0, 0.0)
        with self.lock, np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            d = self.diff
            np.subtract(o, r, out=d)
            np.abs(d, out=d)
            if not np.less_equal(d, self.bound, out=self.ok).all():  # NaN compares False: the exact path
                return None
            max_abs = float(d.max())
            np.divide(d, self.scale, out=d)
            return max_abs, float(d.max())


_kept: dict[tuple[int, float, float], _Bounds] = {}
_kept_lock = threading.Lock()


def _bounds(ref: np.ndarray, atol: float, rtol: float) -> _Bounds:
    key = (id(ref), atol, rtol)
    with _kept_lock:
        found = _kept.get(key)
        if found is not None and found.ref is ref:
            return found
        made = _kept[key] = _Bounds(ref, atol, rtol)
        while len(_kept) > 4:  # the oldest go (each keeps its reference alive)
            del _kept[next(iter(_kept))]
        return made


def _close_piece(r: np.ndarray, o: np.ndarray, atol: float, rtol: float) -> tuple[float, float] | None:
    """(max abs error, max relative error) of a piece where every value is close; None otherwise."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        diff = np.abs(o - r)
        scale = np.abs(r)
        # NaN compares False and an infinite reference accepts anything: both take the exact path
        if not (diff <= atol + rtol * scale).all() or np.isinf(r).any():
            return None
        rel = diff / scale
    rel[~np.isfinite(rel)] = 0.0
    return (float(diff.max()) if diff.size else 0.0), (float(rel.max()) if rel.size else 0.0)


def _exact(ref: np.ndarray, out: np.ndarray, atol: float, rtol: float) -> tuple[float, float, np.ndarray]:
    """In float64, NaN/Inf allowed where the reference has them: the slow path, for outputs that are off."""
    r, o = ref.astype(np.float64), out.astype(np.float64)
    finite_ref = np.isfinite(r)
    same_nonfinite = ~finite_ref & ((np.isnan(r) & np.isnan(o)) | (r == o))
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(o - r)
        close = finite_ref & (diff <= atol + rtol * np.abs(np.where(finite_ref, r, 0.0)))
    finite = np.isfinite(diff)
    max_abs = float(diff[finite].max()) if finite.any() else 0.0
    with np.errstate(over="ignore"):  # a relative error past float64's range is inf, said as such
        rel = diff[finite] / np.maximum(np.abs(r[finite]), np.finfo(np.float64).tiny)
    return max_abs, (float(rel.max()) if rel.size else 0.0), np.flatnonzero(~(same_nonfinite | close))


def compare_all(
    refs: Mapping[str, np.ndarray],
    outs: Mapping[str, np.ndarray],
    tolerances: Mapping[str, tuple[float, float]],
) -> list[Verdict]:
    return [compare(name, ref, outs.get(name), *tolerances[name]) for name, ref in refs.items()]


def failure_text(verdicts: Sequence[Mapping[str, Any]], where: str = "") -> str:
    """One line for the first failing output: where, what, the errors and how many are off.
    `verdicts` may come back from the store (JSON), so they are read as plain mappings."""
    bad = [v for v in verdicts if not v["ok"]]
    if not bad:
        return ""
    v = bad[0]
    at = f" at {where}" if where else ""
    errs = []
    if v.get("max_abs_err") is not None:
        errs.append(f"max abs err {v['max_abs_err']:.3g}, max rel err {v['max_rel_err']:.3g}")
    errs.append(f"{v['mismatches']} mismatch{'es' * (v['mismatches'] != 1)}")
    more = f"; {len(bad) - 1} more output(s) wrong" if len(bad) > 1 else ""
    return f"wrong result{at}: {v.get('reason', v['output'])} ({', '.join(errs)}){more}"


def poisoned(a: np.ndarray) -> np.ndarray:
    """Where an array still holds the poison value (NaN, or the integer maximum)."""
    hit: np.ndarray = np.isnan(a) if np.issubdtype(a.dtype, np.floating) else a == np.iinfo(a.dtype).max
    return hit
