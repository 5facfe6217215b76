"""The tuning plot: every measured time (dots) and the best so far (a line) over evaluations,
drawn with braille characters so that one terminal cell holds 2 x 4 points."""

from __future__ import annotations

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


def render_plot(times: list[float | None], width: int, height: int, styles: dict[str, str]) -> Text:
    """times: one entry per evaluation, None for a failed one. Log scale: tuning times span decades."""
    import math

    ok = [t for t in times if t]
    label_w = 10
    if not ok or width <= label_w + 4 or height < 2:
        return Text("no measurements yet", style="dim")
    lo, hi = math.log(min(ok)), math.log(max(ok))
    span = (hi - lo) or 1.0
    cw = width - label_w
    canvas = Canvas(cw, height)
    n = len(times)
    # every point and the best so far, as pixels; only distinct pixels are drawn (100,000 points fit)
    import numpy as np
    t = np.array([v if v else np.nan for v in times], dtype=float)
    x = np.round(np.arange(n) * (cw * 2 - 1) / max(n - 1, 1)).astype(int)
    ran = ~np.isnan(t)
    best = np.fmin.accumulate(np.where(ran, t, np.inf))
    has_best = np.isfinite(best)
    for mask, values, style in ((ran, t, "point"), (has_best, best, "best")):
        y = np.round((np.log(values[mask]) - lo) / span * (height * 4 - 1)).astype(int)
        for px, py in set(zip(x[mask].tolist(), y.tolist())):
            canvas.dot(px, py, style)
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

    DEFAULT_CSS = "TuningPlot { height: 9; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.times: list[float | None] = []
        self.palette = {"point": "cyan", "best": "bold yellow"}

    def reset(self, times: list[float | None] | None = None) -> None:
        self.times = list(times or [])
        self.redraw()

    def add(self, time_ms: float | None) -> None:
        self.times.append(time_ms)

    def redraw(self) -> None:
        width = max(self.size.width, 20)
        self.update(render_plot(self.times, width, max(self.size.height - 1, 2), self.palette))

    def on_resize(self) -> None:
        self.redraw()
