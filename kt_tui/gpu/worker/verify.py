"""Compare a kernel's outputs with the reference outputs, per output argument."""

from __future__ import annotations

import numpy as np

EXCERPT = 2  # indices shown on each side of the first failing one


def value_text(x) -> str:
    x = x.item() if hasattr(x, "item") else x
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def compare(name: str, ref: np.ndarray, out: np.ndarray, atol: float, rtol: float) -> dict:
    """One output's verdict: ok, max errors, mismatch count, the first failing index and an
    excerpt around it ([index, got, expected] as text)."""
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
    if np.issubdtype(ref.dtype, np.floating):
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(out - ref)
            # NaN compares False and an infinite reference accepts anything: both take the exact path
            bad = ~(diff <= atol + rtol * np.abs(ref)) | np.isinf(ref)
        if bad.any():  # the slow, exact path: in float64, NaN/Inf allowed where the reference has them
            r, o = ref.astype(np.float64), out.astype(np.float64)
            finite_ref = np.isfinite(r)
            same_nonfinite = ~finite_ref & ((np.isnan(r) & np.isnan(o)) | (r == o))
            with np.errstate(invalid="ignore", over="ignore"):
                diff = np.abs(o - r)
                close = finite_ref & (diff <= atol + rtol * np.abs(np.where(finite_ref, r, 0.0)))
            bad = ~(same_nonfinite | close)
            finite = np.isfinite(diff)
            max_abs = float(diff[finite].max()) if finite.any() else 0.0
            rel = diff[finite] / np.maximum(np.abs(r[finite]), np.finfo(np.float64).tiny)
            max_rel = float(rel.max()) if rel.size else 0.0
        else:
            max_abs = float(diff.max()) if diff.size else 0.0
            with np.errstate(invalid="ignore", divide="ignore"):
                rel = diff / np.abs(ref)
            max_rel = float(np.nanmax(np.where(np.isfinite(rel), rel, 0.0))) if rel.size else 0.0
    else:
        diff = np.abs(out.astype(np.int64) - ref.astype(np.int64))
        bad = diff > atol
        max_abs, max_rel = float(diff.max()) if diff.size else 0.0, 0.0
    idx = np.flatnonzero(bad)
    verdict = {
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


def compare_all(refs: dict[str, np.ndarray], outs: dict[str, np.ndarray], tolerances: dict[str, tuple]) -> list[dict]:
    return [compare(name, ref, outs.get(name), *tolerances[name]) for name, ref in refs.items()]


def failure_text(verdicts: list[dict], where: str = "") -> str:
    """One line for the first failing output: where, what, the errors and how many are off."""
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
