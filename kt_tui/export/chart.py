"""A scatter chart with a step line per series, as a small self-contained SVG. Written here rather
than by matplotlib: importing and running matplotlib took about 0.45 s of CPU, a fifth of a big
session's export (issue 24). Every text from the store is escaped."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import numpy as np

W, H = 900, 480  # the drawing, in pixels
LEFT, RIGHT, TOP, BOTTOM = 70, 16, 34, 62  # margins around the axes
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22")


@dataclass
class Series:
    label: str
    x: np.ndarray  # the points drawn
    y: np.ndarray
    step_x: np.ndarray  # the step line, drawn as matplotlib's step(where="post")
    step_y: np.ndarray


def ticks(lo: float, hi: float, n: int = 6) -> list[float]:
    """About n round values from lo to hi: steps of 1, 2 or 5 times a power of ten."""
    span = hi - lo
    if not (span > 0 and math.isfinite(span)):
        return [lo]
    raw = span / n
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw * (1 - 1e-9))
    first = math.ceil(lo / step - 1e-9) * step
    count = int(math.floor((hi - first) / step + 1e-9)) + 1
    return [round(first + i * step, 12) for i in range(count)]


def tick_label(value: float, step: float) -> str:
    digits = max(0, -math.floor(math.log10(step))) if step > 0 else 0
    return f"{value:.{digits}f}"


def chart(
    series: list[Series],
    hline: tuple[float, str] | None,
    title: str,
    xlabel: str,
    ylabel: str,
    note: str,
) -> str:
    """The SVG text: each series' points (a <g class="points"> of <circle>s) and its step line, a
    dashed horizontal line `hline` (value, label), axes with round ticks, a legend and a note."""
    x0, x1 = _span([s.x for s in series] + [s.step_x for s in series], 0.02)
    y0, y1 = _span(
        [s.y for s in series] + [s.step_y for s in series] + [np.array([hline[0] if hline else np.nan])], 0.05
    )
    right, bottom = W - RIGHT, H - BOTTOM

    def sx(x: np.ndarray) -> np.ndarray:
        return LEFT + (np.asarray(x, float) - x0) / (x1 - x0) * (right - LEFT)

    def sy(y: np.ndarray) -> np.ndarray:
        return bottom - (np.asarray(y, float) - y0) / (y1 - y0) * (bottom - TOP)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="DejaVu Sans, Arial, sans-serif" font-size="11">',
        f"<title>{escape(title)}</title>",
        f'<rect width="{W}" height="{H}" fill="white"/>',
    ]
    out += _axes(x0, x1, y0, y1, sx, sy)
    for i, s in enumerate(series):
        color = COLORS[i % len(COLORS)]
        px, py = sx(s.x), sy(s.y)
        fine = np.isfinite(px) & np.isfinite(py)
        dots = "".join(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="2.6"/>' for a, b in zip(px[fine], py[fine]))
        out.append(f'<g class="points" fill="{color}" fill-opacity="0.6">{dots}</g>')
        out.append(_step(sx(s.step_x), sy(s.step_y), color))
    if hline is not None:
        y = float(sy(np.array(hline[0])))
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="grey" stroke-dasharray="5,4"/>')
    out += _legend(
        [(COLORS[i % len(COLORS)], s.label, False) for i, s in enumerate(series)]
        + ([("grey", hline[1], True)] if hline else [])
    )
    out += [
        f'<text x="{(LEFT + right) / 2:.1f}" y="{TOP - 12}" text-anchor="middle" font-size="13">{escape(title)}</text>',
        f'<text x="{(LEFT + right) / 2:.1f}" y="{bottom + 36}" text-anchor="middle">{escape(xlabel)}</text>',
        f'<text transform="translate(16 {(TOP + bottom) / 2:.1f}) rotate(-90)" text-anchor="middle">'
        f"{escape(ylabel)}</text>",
        f'<text x="6" y="{H - 6}" font-size="9" fill="dimgrey">{escape(note)}</text>',
        "</svg>",
    ]
    return "\n".join(out) + "\n"


def _span(arrays: list[np.ndarray], pad: float) -> tuple[float, float]:
    """The finite range of all values, widened by `pad` of it on each side (never empty)."""
    values = np.concatenate([np.asarray(a, float).ravel() for a in arrays]) if arrays else np.zeros(0)
    values = values[np.isfinite(values)]
    if not len(values):
        return 0.0, 1.0
    lo, hi = float(values.min()), float(values.max())
    if hi == lo:
        wide = abs(lo) * 0.05 or 0.5
        return lo - wide, hi + wide
    return lo - (hi - lo) * pad, hi + (hi - lo) * pad


def _axes(x0: float, x1: float, y0: float, y1: float, sx, sy) -> list[str]:  # type: ignore[no-untyped-def]
    right, bottom = W - RIGHT, H - BOTTOM
    out = ['<g class="axes" stroke="#ddd">']
    labels = []
    xt, yt = ticks(x0, x1), ticks(y0, y1)
    xstep = xt[1] - xt[0] if len(xt) > 1 else 1.0
    ystep = yt[1] - yt[0] if len(yt) > 1 else 1.0
    for t in xt:
        x = float(sx(np.array(t)))
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{bottom}"/>')
        labels.append(f'<text x="{x:.1f}" y="{bottom + 15}" text-anchor="middle">{tick_label(t, xstep)}</text>')
    for t in yt:
        y = float(sy(np.array(t)))
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}"/>')
        labels.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick_label(t, ystep)}</text>')
    out.append("</g>")
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{right - LEFT}" height="{bottom - TOP}" fill="none" stroke="#333"/>')
    return out + labels


def _step(px: np.ndarray, py: np.ndarray, color: str) -> str:
    """A line through (x[i], y[i]) that holds y[i] until x[i + 1]."""
    if not len(px):
        return ""
    xs = np.empty(2 * len(px) - 1)
    ys = np.empty(2 * len(px) - 1)
    xs[0::2], xs[1::2] = px, px[1:]
    ys[0::2], ys[1::2] = py, py[:-1]
    points = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(xs, ys) if math.isfinite(a) and math.isfinite(b))
    return f'<polyline class="best" points="{points}" fill="none" stroke="{color}" stroke-width="1.6"/>'


def _legend(entries: list[tuple[str, str, bool]]) -> list[str]:
    """A box at the top right: a marker (a dashed line when dashed) and the label of each entry."""
    if not entries:
        return []
    width = 34 + 5.6 * max(len(label) for _, label, _ in entries)
    x, y = W - RIGHT - 8 - width, TOP + 8
    out = [
        f'<g class="legend" font-size="10"><rect x="{x:.1f}" y="{y}" width="{width:.1f}" '
        f'height="{8 + 15 * len(entries)}" fill="white" fill-opacity="0.85" stroke="#ccc"/>'
    ]
    for i, (color, label, dashed) in enumerate(entries):
        row = y + 15 * (i + 1)
        if dashed:
            mark = f'<line x1="{x + 6:.1f}" y1="{row - 4}" x2="{x + 22:.1f}" y2="{row - 4}" stroke="{color}" stroke-dasharray="4,3"/>'
        else:
            mark = f'<circle cx="{x + 14:.1f}" cy="{row - 4}" r="3.5" fill="{color}" fill-opacity="0.6"/>'
        out.append(mark + f'<text x="{x + 28:.1f}" y="{row}">{escape(label)}</text>')
    return out + ["</g>"]
