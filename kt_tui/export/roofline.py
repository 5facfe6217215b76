"""The roofline of the report: the device's measured roofs (a device-to-device copy's bandwidth, FP32
FMA throughput; the theoretical bandwidth dashed) on log-log axes of arithmetic intensity (FLOP per
byte) and GFLOP/s, with the baseline and each version's best as points. A kernel without a FLOP
count has no intensity: its points are drawn as achieved GB/s against the two bandwidth roofs.
Written here as plain SVG (no plotting library, no script); every text is escaped."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Any

W, H = 720, 400
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 34, 56
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


@dataclass
class Point:
    label: str
    bytes: float | None
    flops: float | None
    time_ms: float


def _log_axis(lo: float, hi: float, start: float, length: float, flip: bool = False):
    a, b = math.log10(lo), math.log10(hi)

    def at(v: float) -> float:
        t = (math.log10(max(v, lo)) - a) / (b - a)
        return start + (length * (1 - t) if flip else length * t)

    return at


def _decades(lo: float, hi: float) -> list[float]:
    return [10.0**e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def roofline_svg(points: list[Point], facts: dict[str, Any] | None) -> str | None:
    """The chart, or None when the device's peaks or the points' bytes are not known."""
    facts = facts or {}
    copy, fma = facts.get("copy_gbps"), facts.get("fma_gflops")
    points = [p for p in points if p.bytes and p.time_ms > 0]
    if not copy or not points:
        return None
    title = f"Roofline: {facts.get('name', 'GPU')} (measured peaks)"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>',
    ]
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    if fma and all(p.flops for p in points):
        out += _intensity_chart(points, copy, fma, facts.get("bandwidth_gbps"), pw, ph)
    else:
        out += _bandwidth_chart(points, copy, facts.get("bandwidth_gbps"), pw, ph)
    out.append("</svg>")
    return "\n".join(out)


def _intensity_chart(points: list[Point], copy: float, fma: float, theory: float | None, pw: float, ph: float):
    ai = [p.flops / p.bytes for p in points]  # type: ignore[operator]  # all known here
    perf = [p.flops / (p.time_ms * 1e-3) / 1e9 for p in points]  # type: ignore[operator]
    ridge = fma / copy
    xlo, xhi = min(min(ai), ridge) / 10, max(max(ai), ridge) * 10
    ylo, yhi = min(min(perf), copy * xlo) / 2, fma * 2
    x = _log_axis(xlo, xhi, LEFT, pw)
    y = _log_axis(ylo, yhi, TOP, ph, flip=True)
    out = _axes(x, y, xlo, xhi, ylo, yhi, "arithmetic intensity (FLOP per byte)", "GFLOP/s")
    roof = [(v, min(fma, copy * v)) for v in (xlo, ridge, xhi)]
    out.append(
        '<polyline fill="none" stroke="#333" stroke-width="2" points="'
        + " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in roof)
        + '"/>'
    )
    if theory:
        top = min(xhi, fma / theory)
        out.append(
            f'<line x1="{x(xlo):.1f}" y1="{y(theory * xlo):.1f}" x2="{x(top):.1f}" y2="{y(theory * top):.1f}" '
            'stroke="#999" stroke-dasharray="4 3"/>'
        )
    out.append(
        f'<text x="{x(ridge) + 4:.1f}" y="{y(fma) - 6:.1f}">FP32 FMA {fma / 1000:.1f} TFLOP/s; copy {copy:.0f} GB/s</text>'
    )
    for i, (p, a, v) in enumerate(zip(points, ai, perf)):
        out += _point(x(a), y(v), p.label, f"{v:.0f} GFLOP/s at {a:.2f} FLOP/B", i)
    return out


def _bandwidth_chart(points: list[Point], copy: float, theory: float | None, pw: float, ph: float):
    gbps = [p.bytes / (p.time_ms * 1e-3) / 1e9 for p in points]  # type: ignore[operator]  # bytes known here
    top = max([copy, theory or 0, *gbps]) * 1.15
    out = [
        f'<line x1="{LEFT}" y1="{TOP + ph}" x2="{LEFT + pw}" y2="{TOP + ph}" stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + ph}" stroke="#333"/>',
        f'<text x="14" y="{TOP + ph / 2}" transform="rotate(-90 14 {TOP + ph / 2})" text-anchor="middle">GB/s</text>',
        f'<text x="{LEFT + pw / 2}" y="{H - 12}" text-anchor="middle">no FLOP count ([metrics] flops): achieved '
        "bandwidth against the memory roofs</text>",
    ]

    def y(v: float) -> float:
        return TOP + ph * (1 - v / top)

    for name, v, dash in (("measured copy", copy, ""), ("theoretical", theory, ' stroke-dasharray="4 3"')):
        if v:
            out.append(f'<line x1="{LEFT}" y1="{y(v):.1f}" x2="{LEFT + pw}" y2="{y(v):.1f}" stroke="#333"{dash}/>')
            out.append(f'<text x="{LEFT + pw - 4}" y="{y(v) - 4:.1f}" text-anchor="end">{name} {v:.0f} GB/s</text>')
    slot = pw / (len(points) + 1)
    for i, (p, v) in enumerate(zip(points, gbps)):
        cx = LEFT + slot * (i + 1)
        out += _point(cx, y(v), p.label, f"{v:.0f} GB/s, {100 * v / copy:.1f} % of the copy peak", i)
    return out


def _axes(x, y, xlo: float, xhi: float, ylo: float, yhi: float, xlabel: str, ylabel: str) -> list[str]:
    out = [
        f'<line x1="{x(xlo):.1f}" y1="{y(ylo):.1f}" x2="{x(xhi):.1f}" y2="{y(ylo):.1f}" stroke="#333"/>',
        f'<line x1="{x(xlo):.1f}" y1="{y(ylo):.1f}" x2="{x(xlo):.1f}" y2="{y(yhi):.1f}" stroke="#333"/>',
        f'<text x="{(x(xlo) + x(xhi)) / 2:.1f}" y="{H - 12}" text-anchor="middle">{escape(xlabel)}</text>',
        f'<text x="14" y="{TOP + (H - TOP - BOTTOM) / 2}" transform="rotate(-90 14 {TOP + (H - TOP - BOTTOM) / 2})" '
        f'text-anchor="middle">{escape(ylabel)}</text>',
    ]
    for v in _decades(xlo, xhi):
        if xlo <= v <= xhi:
            out.append(f'<text x="{x(v):.1f}" y="{y(ylo) + 16:.1f}" text-anchor="middle">{v:g}</text>')
    for v in _decades(ylo, yhi):
        if ylo <= v <= yhi:
            out.append(f'<text x="{x(xlo) - 6:.1f}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
    return out


def _point(cx: float, cy: float, label: str, value: str, i: int) -> list[str]:
    color = COLORS[i % len(COLORS)]
    return [
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{color}"><title>{escape(label)}: {escape(value)}</title></circle>',
        f'<text x="{cx + 8:.1f}" y="{cy + 4 + 14 * (i % 2):.1f}" fill="{color}">{escape(label[:40])}: {escape(value)}</text>',
    ]
