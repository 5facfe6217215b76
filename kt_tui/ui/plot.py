"""The tuning plot: every measured time (dots, one colour per kernel version) and the best so far
(a line) over evaluations, drawn with braille characters so that one terminal cell holds 2 x 4 points."""

from __future__ import annotations

import math

import numpy as np
from rich.text import Text
from textual.widgets import Static

_DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))  # braille bit per (row, column) in a cell


class Canvas:
    def __init__(self, width: int, height: int):
        self.w, self.h = width, height
        self.cells = [[0] * width for _ in range(height)]
        self.style = [[""] * width for _ in range(height)]

    def dot(self, x: int, y: int, style: str) -> None:
        """(x, y) in points: 2 per cell across, 4 per cell down; y = 0 is the top."""
        if 0 <= x < self.w * 2 and 0 <= y < self.h * 4:
            row, col = y // 4, x // 2
            self.cells[row][col] |= _DOTS[y % 4][x % 2]
            if style == "best" or not self.style[row][col]:
                self.style[row][col] = style

    def text(self, styles: dict[str, str]) -> Text:
        out = Text()
        for r in range(self.h):
            for c in range(self.w):
                out.append(chr(0x2800 + self.cells[r][c]), styles.get(self.style[r][c], ""))
            if r < self.h - 1:
                out.append("\n")
        return out


SERIES = ("cyan", "magenta", "green", "blue", "red")


def render_plot(times: list[float | None], width: int, height: int, styles: dict[str, str],
                series: list[int] | None = None) -> Text:
    """times: one entry per evaluation, None for a failed one; series: each one's series number
    (its colour: styles['point0'], ...). Log scale: tuning times span decades."""
    ok = [t for t in times if t]
    label_w = 10
    if not ok or width <= label_w + 4 or height < 2:
        return Text("no measurements yet", style="dim")
    lo, hi = math.log(min(ok)), math.log(max(ok))
    span = (hi - lo) or 1.0
    cw = width - label_w
    canvas = Canvas(cw, height)
    n = len(times)
    # every point (coloured by its series) and the best so far, as pixels; only distinct pixels are
    # drawn (100,000 points fit), in the order of their first point: a cell takes the colour of the
    # first point drawn into it, as a point-by-point drawing gives it
    t = np.array([v if v else np.nan for v in times], dtype=float)
    x = np.round(np.arange(n) * (cw * 2 - 1) / max(n - 1, 1)).astype(int)
    ran = ~np.isnan(t)
    best = np.fmin.accumulate(np.where(ran, t, np.inf))
    has_best = np.isfinite(best)
    rows = height * 4
    names = ([f"point{i}" for i in range(len(SERIES))] if series else ["point"])
    kinds = (np.asarray(series, dtype=int)[:n] % len(SERIES) if series else np.zeros(n, dtype=int))
    for mask, values, style in ((ran, t, None), (has_best, best, "best")):
        px = x[mask]
        py = np.round((np.log(values[mask]) - lo) / span * (rows - 1)).astype(int)
        _, first = np.unique(px * rows + py, return_index=True)
        first.sort()
        ks = kinds[mask][first].tolist()
        for px_, py_, k in zip(px[first].tolist(), py[first].tolist(), ks):
            canvas.dot(px_, py_, style or names[k])
    body = canvas.text(styles)
    lines = body.split("\n")
    out = Text()
    for r, line in enumerate(lines):
        label = f"{min(ok):.4f}" if r == 0 else (f"{max(ok):.4f}" if r == len(lines) - 1 else "")
        out.append(f"{label:>8}  ", "dim")
        out.append_text(line)
        out.append("\n")
    out.append(f"{'ms':>8}  1{'evaluations':^{cw - len(str(n)) - 1}}{n}", "dim")
    return out


class TuningPlot(Static):
    """Fed one result at a time; redraws on resize. Faster is higher up: the best line falls."""

    DEFAULT_CSS = "TuningPlot { height: 10; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.times: list[float | None] = []
        self.series: list[int] = []
        self.versions: list[str | None] = []  # series number -> version id
        self.labels: dict[str, str] = {}  # version id -> what the legend calls it
        self.palette = {"point": "cyan", "best": "bold yellow", **{f"point{i}": c for i, c in enumerate(SERIES)}}

    def reset(self, points: list[tuple[float | None, str | None]] | None = None) -> None:
        self.times, self.series, self.versions = [], [], []
        for t, vid in points or []:
            self.add(t, vid)
        self.redraw()

    def add(self, time_ms: float | None, version: str | None = None) -> None:
        if version not in self.versions:
            self.versions.append(version)
        self.times.append(time_ms)
        self.series.append(self.versions.index(version))

    def redraw(self) -> None:
        width = max(self.size.width, 20)
        plot = render_plot(self.times, width, max(self.size.height - 2, 2), self.palette, self.series)
        if len(self.versions) > 1:
            plot.append("\n" + " " * 10)
            for i, vid in enumerate(self.versions):
                plot.append("● ", SERIES[i % len(SERIES)])
                plot.append(f"{self.labels.get(vid, vid or '?')}  ", "dim")
        self.update(plot)

    def on_resize(self) -> None:
        self.redraw()
