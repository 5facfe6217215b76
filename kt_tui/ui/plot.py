"""The tuning plot: every measured time (dots, one colour per kernel version) and the best so far
(a line) over evaluations, drawn with braille characters so that one terminal cell holds 2 x 4 points."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..words import plural

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


def render_plot(
    times: list[float | None], width: int, height: int, styles: dict[str, str], series: list[int] | None = None
) -> Text:
    """times: one entry per evaluation, None for a failed one; series: each one's series number
    (its colour: styles['point0'], ...). Log scale: tuning times span decades."""
    import numpy as np  # here: a resumed session's first frame draws no points (and waits for no numpy)

    t = np.asarray(times, dtype=float)  # None -> nan
    n = len(t)
    ran = t > 0  # false for nan, failures and zero
    label_w = 10
    if not ran.any() or width <= label_w + 4 or height < 2:
        return Text("no measurements yet", style="dim")
    fastest, slowest = float(t[ran].min()), float(t[ran].max())
    lo, hi = np.log(fastest), np.log(slowest)
    span = (hi - lo) or 1.0
    cw = width - label_w
    # every point (coloured by its series) and the best so far, as pixels; only distinct pixels are
    # drawn (100,000 points fit), in the order of their first point: a cell takes the colour of the
    # first point drawn into it, as a point-by-point drawing gives it
    x = np.round(np.arange(n) * (cw * 2 - 1) / max(n - 1, 1)).astype(int)
    best = np.fmin.accumulate(np.where(ran, t, np.inf))
    has_best = np.isfinite(best)
    rows = height * 4
    series = series if series is not None else []
    names = [f"point{i}" for i in range(len(SERIES))] if len(series) else ["point"]
    kinds = np.asarray(series, dtype=int)[:n] % len(SERIES) if len(series) else np.zeros(n, dtype=int)
    names.append("best")
    cells = np.zeros(height * cw, dtype=np.int64)  # braille bits per cell, row by row
    styled = np.full(height * cw, -1)  # index into names; -1: none
    dots = np.array(_DOTS)
    for mask, values, is_best in ((ran, t, False), (has_best, best, True)):
        px = x[mask]
        py = np.round((np.log(values[mask]) - lo) / span * (rows - 1)).astype(int)
        _, first = np.unique(px * rows + py, return_index=True)
        first.sort()
        px, py, ks = px[first], py[first], kinds[mask][first]
        inside = (px >= 0) & (px < cw * 2) & (py >= 0) & (py < rows)
        px, py, ks = px[inside], py[inside], ks[inside]
        cell = (py // 4) * cw + px // 2
        np.bitwise_or.at(cells, cell, dots[py % 4, px % 2])
        if is_best:
            styled[cell] = len(names) - 1
        else:  # a cell takes the colour of the first point drawn into it
            where, at = np.unique(cell, return_index=True)
            styled[where] = np.where(styled[where] < 0, ks[at], styled[where])
    out = Text()
    for r in range(height):
        label = f"{fastest:.4f}" if r == 0 else (f"{slowest:.4f}" if r == height - 1 else "")
        out.append(f"{label:>8}  ", "dim")
        row, kind = cells[r * cw : (r + 1) * cw], styled[r * cw : (r + 1) * cw]
        text = "".join(map(chr, (row + 0x2800).tolist()))
        cuts = [0, *(np.flatnonzero(np.diff(kind)) + 1).tolist(), cw]
        for a, b in zip(cuts, cuts[1:]):  # one span per run of cells of one style
            out.append(text[a:b], styles.get(names[kind[a]], "") if kind[a] >= 0 else "")
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
        self.labels: dict[str | None, str] = {}  # version id -> what the legend calls it
        self.palette = {"point": "cyan", "best": "bold yellow", **{f"point{i}": c for i, c in enumerate(SERIES)}}
        self._drawn = _Column(float), _Column(int)  # times and series as arrays, extended at each redraw
        self.reading: int | None = None  # how many stored points are being read (load() ends it)

    def reset(self, points: list[tuple[float | None, str | None]] | None = None) -> None:
        self.times, self.series, self.versions = [], [], []
        self._drawn = _Column(float), _Column(int)
        for t, vid in points or []:
            self.add(t, vid)
        self.redraw()

    def load(self, stored: StoredColumns) -> None:
        """A resumed session's points, prepared off the UI thread; the caller redraws."""
        self.times, self.series, self.versions, self._drawn = stored.times, stored.series, stored.versions, stored.drawn
        self.reading = None

    def add(self, time_ms: float | None, version: str | None = None) -> None:
        if version not in self.versions:
            self.versions.append(version)
        self.times.append(time_ms)
        self.series.append(self.versions.index(version))

    def set(self, i: int, time_ms: float | None) -> None:
        """A point measured again (a check): its time changes in place."""
        self.times[i] = time_ms
        self._drawn[0].set(i, time_ms)

    def redraw(self) -> None:
        if self.reading is not None:
            self.update(
                Text(f"loading the plot of {self.reading:,} stored {plural(self.reading, 'result')}…", style="dim")
            )
            return
        width = max(self.size.width, 20)
        if not self.times:
            self.update(Text("no measurements yet", style="dim"))
            return
        times, series = self._drawn[0].extend(self.times), self._drawn[1].extend(self.series)
        plot = render_plot(times, width, max(self.size.height - 2, 2), self.palette, series)
        if len(self.versions) > 1:
            plot.append("\n" + " " * 10)
            for i, vid in enumerate(self.versions):
                plot.append("● ", SERIES[i % len(SERIES)])
                plot.append(f"{self.labels.get(vid, vid or '?')}  ", "dim")
        self.update(plot)

    def on_resize(self) -> None:
        self.redraw()


class StoredColumns:
    """A stored session's points for TuningPlot.load: one time (None: did not run right) and one
    version each, in the order stored, made ready to draw (off the UI thread: 100,000 points)."""

    def __init__(self, times, versions) -> None:
        self.versions = list(dict.fromkeys(versions))
        index = {v: i for i, v in enumerate(self.versions)}
        self.times = list(times)
        self.series = list(map(index.__getitem__, versions)) if len(self.versions) > 1 else [0] * len(self.times)
        self.drawn = _Column(float), _Column(int)
        self.drawn[0].extend(self.times)
        self.drawn[1].extend(self.series)


class _Column:
    """A list's values as a numpy array, converting only what was appended since the last call: a
    redraw of 100,000 points does not walk them in Python."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.data, self.n = None, 0

    def extend(self, values: list):
        import numpy as np  # here: as render_plot (loaded once; later imports are a lookup)

        if self.data is None:
            self.data = np.empty(1024, self.dtype)
        if len(values) > self.n:
            tail = np.asarray(values[self.n :], dtype=self.dtype)  # None -> nan
            while len(self.data) < len(values):
                self.data = np.concatenate([self.data, np.empty(len(self.data), self.dtype)])
            self.data[self.n : len(values)] = tail
            self.n = len(values)
        return self.data[: len(values)]

    def set(self, i: int, value) -> None:
        if i < self.n:
            self.data[i] = float("nan") if value is None else value
