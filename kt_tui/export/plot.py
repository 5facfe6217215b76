"""report-times.svg: the trusted times in the order measured, a series per kernel version with its
best so far, drawn from at most CAP points (every best-so-far point, the fastest and the slowest,
then an even sample): every result is still in results.csv and the caches."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..records import config_key
from ..words import counted
from .bundle import Bundle
from .chart import Series, chart

CAP = 2000  # points drawn in all, whatever the session's size


def plot_svg(b: Bundle, cap: int = CAP, points: tuple[Any, Any] | None = None) -> str:
    """points: the version index (of b.versions) and trusted time (NaN: not trusted) of every result in
    the order stored, when the caller has read them already (tables.Points); else read from the store."""
    xs, ys, series = trusted_points(b) if points is None else _arrays(*points)
    labels = [_short(v["label"] or v["id"]) for v in b.versions]
    counts = [int(np.count_nonzero(series == i)) for i in range(len(labels))]
    budget = shares(counts, cap)
    total, drawn = sum(counts), 0
    drawn_series = []
    for i, label in enumerate(labels):
        x, y = xs[series == i], ys[series == i]
        if not len(x):
            continue
        keep = pick(y, budget[i])
        drawn += len(keep)
        part = f"{len(keep)} of {len(x)} drawn" if len(keep) < len(x) else f"{len(x)} drawn"
        best = np.minimum.accumulate(y[keep])
        step_x, step_y = np.append(x[keep], x[-1]), np.append(best, best[-1])
        drawn_series.append(Series(f"{label} ({part})", x[keep], y[keep], step_x, step_y))
    base = b.session.get("baseline_ms")
    note = f"{drawn} of {counted(total, 'point')} drawn" + (
        " (every best so far, the fastest, the slowest and an even sample; all in results.csv)" if drawn < total else ""
    )
    return chart(
        drawn_series,
        (float(base), "original, default params") if base else None,
        f"{b.name}: trusted times and the best so far per version",
        "configuration, in the order measured",
        "time (ms)",
        note,
    )


def reference_of(b: Bundle) -> tuple[str, str]:
    """The version and key of the original kernel at its default parameters (trusted unverified)."""
    spec = b.original_spec
    return b.original["id"], config_key(list(spec.tune_params), spec.baseline_params())


def _arrays(series: Any, times: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = np.array(times, dtype=float)
    ok = ~np.isnan(t)
    return np.arange(1, len(t) + 1)[ok], t[ok], np.array(series, dtype=int)[ok]


def trusted_points(b: Bundle) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Position (1-based, in the order stored), time and version index of every trusted result,
    read a page at a time without decoding a record."""
    index = {v["id"]: i for i, v in enumerate(b.versions)}
    reference = reference_of(b)
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    series: list[np.ndarray] = []
    start = 1
    for vids, _keys, times in b.data.plot_pages(size=10_000, reference=reference):
        t = np.array(times, dtype=float)  # None (not trusted) -> nan
        ok = ~np.isnan(t)
        xs.append(np.arange(start, start + len(t))[ok])
        ys.append(t[ok])
        series.append(np.array([index.get(v, -1) for v in vids], dtype=int)[ok])
        start += len(t)
    if not xs:
        return np.zeros(0, int), np.zeros(0), np.zeros(0, int)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(series)


def shares(counts: list[int], cap: int) -> list[int]:
    """Points each series may draw, `cap` in all: a series smaller than its fair share is drawn whole,
    what it leaves goes to the bigger ones."""
    out, left = [0] * len(counts), cap
    order = sorted(range(len(counts)), key=counts.__getitem__)
    for j, i in enumerate(order):
        out[i] = min(counts[i], left // (len(order) - j))
        left -= out[i]
    return out


def pick(y: np.ndarray, cap: int) -> np.ndarray:
    """Sorted indices of at most `cap` points of y to draw: every new best so far, the fastest and the
    slowest, then an even sample; all of them when they fit."""
    n = len(y)
    if n <= cap:
        return np.arange(n)
    if cap < 3:  # room for the extremes at most
        return np.unique([int(np.argmin(y)), int(np.argmax(y))][: max(cap, 0)])
    best = np.minimum.accumulate(y)
    must = np.flatnonzero(np.r_[True, best[1:] < best[:-1]])
    ends = np.array([int(np.argmin(y)), int(np.argmax(y))])
    if len(must) + 2 > cap:  # a run that kept getting faster: an even sample of its steps
        must = must[np.linspace(0, len(must) - 1, max(cap - 2, 0)).astype(int)]
    keep = np.union1d(must, ends)
    room = cap - len(keep)
    if room > 0:
        even = np.linspace(0, n - 1, room).astype(int)
        keep = np.union1d(keep, even)
        if len(keep) < cap:  # the sample met points already kept: fill from those not kept yet
            rest = np.setdiff1d(np.arange(n), keep)
            keep = np.union1d(keep, rest[np.linspace(0, len(rest) - 1, cap - len(keep)).astype(int)])
    return keep


def _short(text: Any, n: int = 48) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"
