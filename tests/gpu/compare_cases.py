"""Reference/output pairs that the device comparison (kt_tui/gpu/device/compare.py) must judge as
kt_tui/compare.py does: random arrays, one wrong element at the first/middle/last index, NaN, inf,
-0.0, integers near their limits, values just inside and just outside the tolerance. Used by the
CPU tests (the kernels built for the host) and the GPU tests (every backend)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np

from kt_tui.gpu.device.compare import DTYPES
from kt_tui.kernel.spec_keys import DEFAULT_TOL

FLOATS = ("float16", "float32", "float64")


def tolerances(dtype: str) -> list[tuple[float, float]]:
    """The spec defaults of the dtype, exact, and for integers an int and a float atol."""
    if dtype in FLOATS:
        return [DEFAULT_TOL[dtype], (0.0, 0.0), (0.5, 0.0)]
    wide = [(2**53, 0.0)] if np.dtype(dtype).itemsize == 8 and np.dtype(dtype).kind in "iu" else []
    return [(0.0, 0.0), (1, 0.0), (2.5, 0.0), *wide]  # 2**53: compared exactly, not as float64


def _random(dtype: np.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    if dtype.kind == "f":
        return rng.standard_normal(n).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(n) * 100 + 1j * rng.standard_normal(n)).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def _just(ref: np.ndarray, atol: float, rtol: float, factor: float) -> np.ndarray:
    """ref moved by `factor` times its tolerance bound, in the array's own type."""
    with np.errstate(over="ignore", invalid="ignore"):
        bound = np.abs(ref.astype(np.float64)) * rtol + atol
        return (ref.astype(np.float64) + bound * factor).astype(ref.dtype)


def cases(
    dtype_name: str, n: int, seed: int = 0, full: bool = True
) -> Iterator[tuple[str, np.ndarray, np.ndarray, float, float]]:
    """(label, reference, output, atol, rtol) for one dtype and size; not `full`: the first tolerance
    and a few cases of each kind only (for big arrays)."""
    dtype = np.dtype(dtype_name)
    rng = np.random.default_rng(seed + n)
    ref = _random(dtype, n, rng)
    idx = sorted({0, n // 2, n - 1})
    for atol, rtol in tolerances(dtype_name)[: None if full else 1]:
        tol = f"atol={atol!r} rtol={rtol!r}"
        yield f"equal {tol}", ref, ref.copy(), atol, rtol
        yield f"random {tol}", ref, _random(dtype, n, rng), atol, rtol
        if not full:
            yield from _few(dtype, ref, idx, atol, rtol, tol)
            continue
        for i in idx:
            out = ref.copy()
            out.flat[i] = _random(dtype, 1, rng)[0] if dtype.kind != "b" else not ref.flat[i]
            if out.flat[i] == ref.flat[i] and dtype.kind in "iu":
                out.flat[i] = ref.flat[i] ^ 1
            yield f"one wrong at {i} {tol}", ref, out, atol, rtol
            several = ref.copy()
            several.flat[i:] = _random(dtype, n - i, rng)
            yield f"wrong from {i} on {tol}", ref, several, atol, rtol
        if dtype.kind == "f":
            yield from _float_cases(dtype, ref, idx, atol, rtol, tol, rng)
        elif dtype.kind in "iu":
            yield from _int_cases(dtype, n, idx, atol, rtol, tol, rng)
        elif dtype.kind == "c":
            yield from _complex_cases(dtype, ref, idx, atol, rtol, tol)


def _few(dtype, ref, idx, atol, rtol, tol):
    for i in idx:
        out = ref.copy()
        out.flat[i] = ref.flat[i] ^ 1 if dtype.kind in "iub" else ref.flat[i] + 1
        yield f"one wrong at {i} {tol}", ref, out, atol, rtol
    if dtype.kind == "f":
        for factor in (0.999, 1.001):
            yield f"moved by {factor} of the bound {tol}", ref, _just(ref, atol, rtol, factor), atol, rtol
        r, o = ref.copy(), ref.copy()
        r[idx] = o[idx] = np.nan
        o[idx[-1]] = np.inf
        yield f"NaN vs NaN and inf {tol}", r, o, atol, rtol
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        yield f"max vs min {tol}", np.full(ref.size, info.max, dtype), np.full(ref.size, info.min, dtype), atol, rtol
    elif dtype.kind == "c":
        o = ref.copy()
        o[idx] = complex(np.nan, 1.0)
        yield f"real part NaN {tol}", ref, o, atol, rtol


def _float_cases(dtype, ref, idx, atol, rtol, tol, rng):
    n = ref.size
    nan, inf = dtype.type(np.nan), dtype.type(np.inf)
    for factor in (0.5, 0.999, 1.0, 1.001, 2.0, -1.001):
        yield f"moved by {factor} of the bound {tol}", ref, _just(ref, atol, rtol, factor), atol, rtol
    with np.errstate(over="ignore", invalid="ignore"):
        edge = (ref + (atol + rtol * np.abs(ref))).astype(dtype)  # the bound as numpy rounds it in the dtype
        for way in (np.inf, -np.inf):
            near = np.nextafter(edge, dtype.type(way))
            yield f"one step {way} from the bound {tol}", ref, near, atol, rtol
        yield f"at the bound {tol}", ref, edge, atol, rtol
    for i in idx:
        r, o = ref.copy(), ref.copy()
        r.flat[i] = o.flat[i] = nan
        yield f"NaN vs NaN at {i} {tol}", r, o, atol, rtol
        o = ref.copy()
        o.flat[i] = nan
        yield f"NaN output at {i} {tol}", ref, o, atol, rtol
        yield f"NaN reference at {i} {tol}", r, ref.copy(), atol, rtol
        for a, b in ((inf, inf), (-inf, -inf), (inf, -inf), (inf, 1.0), (1.0, inf), (inf, nan), (nan, inf)):
            r, o = ref.copy(), ref.copy()
            r.flat[i], o.flat[i] = a, b
            yield f"ref {a} out {b} at {i} {tol}", r, o, atol, rtol
        r, o = ref.copy(), ref.copy()
        r.flat[i], o.flat[i] = 0.0, -0.0
        yield f"0.0 vs -0.0 at {i} {tol}", r, o, atol, rtol
        yield f"-0.0 vs 0.0 at {i} {tol}", o, r, atol, rtol
    zeros = np.zeros(n, dtype)
    tiny = np.full(n, np.finfo(dtype).smallest_subnormal, dtype)
    small = _just(zeros, atol, rtol, 0.5)
    yield f"zero reference, small output {tol}", zeros, small, atol, rtol
    yield f"subnormal reference, small output {tol}", tiny, small, atol, rtol
    yield f"subnormal vs zero {tol}", tiny, zeros, atol, rtol
    big = np.full(n, np.finfo(dtype).max, dtype)
    yield f"max vs -max {tol}", big, -big, atol, rtol
    yield f"max vs max {tol}", big, big.copy(), atol, rtol
    mixed = rng.choice(np.array([0.0, -0.0, 1e-3, -7.5, np.inf, -np.inf, np.nan], dtype), n)
    yield f"mixed specials equal {tol}", mixed, mixed.copy(), atol, rtol
    yield f"mixed specials shuffled {tol}", mixed, rng.permutation(mixed), atol, rtol


def _int_cases(dtype, n, idx, atol, rtol, tol, rng):
    info = np.iinfo(dtype)
    hi, lo = np.full(n, info.max, dtype), np.full(n, info.min, dtype)
    yield f"max vs min {tol}", hi, lo, atol, rtol
    yield f"min vs max {tol}", lo, hi, atol, rtol
    near = hi.copy()
    near[idx] = info.max - 1
    yield f"max vs max-1 {tol}", hi, near, atol, rtol
    mid = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    yield f"random vs max {tol}", mid, hi, atol, rtol
    if dtype.itemsize == 8:
        edge = np.full(n, 1 << 53, np.uint64).astype(dtype)
        yield f"2^53 apart {tol}", np.zeros(n, dtype), edge, atol, rtol
        off = (edge.astype(np.uint64) + np.uint64(1)).astype(dtype)
        yield f"2^53+1 apart {tol}", np.zeros(n, dtype), off, atol, rtol
        half_way = np.full(n, 1 << 63, np.uint64).view(dtype)  # |difference| is int64's minimum
        yield f"2^63 apart {tol}", np.zeros(n, dtype), half_way, atol, rtol


def _complex_cases(dtype, ref, idx, atol, rtol, tol):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for value in (np.nan, np.inf, -np.inf, 1e30, -1e30, 2.0**63, -(2.0**63), -3.7, 0.9):
            for i in idx:
                o = ref.copy()
                o.flat[i] = complex(value, 5.0)
                yield f"real part {value} at {i} {tol}", ref, o, atol, rtol
                o = ref.copy()
                o.flat[i] = complex(ref.flat[i].real, value)
                yield f"imaginary part {value} at {i} {tol}", ref, o, atol, rtol
        o = ref + 0.25j  # each part is compared (compare.py)
        yield f"imaginary part off {tol}", ref, o.astype(dtype), atol, rtol
        o = ref + 1e-4 * np.abs(ref) * (1 + 1j)
        yield f"both parts slightly off {tol}", ref, o.astype(dtype), atol, rtol
        r, o = ref.copy(), ref.copy()
        r[idx] = o[idx] = complex(np.inf, np.nan)
        yield f"inf and NaN parts in both {tol}", r, o, atol, rtol
        o[idx[-1]] = complex(np.inf, 0.0)
        yield f"a NaN part where the reference has one {tol}", r, o, atol, rtol


def all_dtypes() -> list[str]:
    return sorted(DTYPES)
