"""report-times.svg: drawn from the rows the tables' pass read, by the export's own small SVG writer."""

from __future__ import annotations

import re
import sys

import pytest

from kt_tui.export import export_session
from kt_tui.export.chart import ticks
from kt_tui.store import SessionStore, Store

from .test_export_tables import row, session


def circles(svg: str) -> list[tuple[float, float]]:
    groups = re.findall(r'<g class="points"[^>]*>(.*?)</g>', svg, re.S)
    return [(float(x), float(y)) for g in groups for x, y in re.findall(r'cx="([-\d.]+)" cy="([-\d.]+)"', g)]


def test_an_export_reads_the_results_once_and_draws_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setenv("KT_TUI_DATA_DIR", str(tmp_path / "data"))
    store, sid, vid = session(tmp_path, [row(i) for i in range(1, 300)] + [row(900, "compile_error")])
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # an import of it fails

    def second_read(*args, **kwargs):
        raise AssertionError("the results were read again for the plot")

    monkeypatch.setattr(Store, "plot_pages", second_read)
    monkeypatch.setattr(SessionStore, "plot_pages", second_read)
    export_session(store, sid, tmp_path / "out")
    svg = (tmp_path / "out" / "report-times.svg").read_text()
    assert len(circles(svg)) == 299 and "299 of 299 points drawn" in svg


def test_the_plot_puts_each_time_in_its_place_and_keeps_text_as_text(tmp_path, monkeypatch):
    monkeypatch.setenv("KT_TUI_DATA_DIR", str(tmp_path / "data"))
    rows = [row(i, time_ms=t) for i, t in enumerate([4.0, 2.0, 3.0, 1.0, 5.0], 1)]
    rows.append(row(6, verified=False, time_ms=0.5))  # found wrong: not drawn
    store, sid, vid = session(tmp_path, rows)
    store.update_session(sid, baseline_ms=4.5)
    with store.conn:
        store.conn.execute("UPDATE versions SET label = ? WHERE id = ?", ['<script>alert("x")</script> & more', vid])
    export_session(store, sid, tmp_path / "out")
    svg = (tmp_path / "out" / "report-times.svg").read_text()
    points = circles(svg)
    assert len(points) == 5
    xs, ys = zip(*points)
    assert list(xs) == sorted(xs)  # in the order measured
    by_time = sorted(range(5), key=lambda i: [4.0, 2.0, 3.0, 1.0, 5.0][i])
    assert sorted(range(5), key=lambda i: -ys[i]) == by_time  # faster is lower on the page: a larger y
    assert "<script" not in svg and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more (5 drawn)" in svg
    assert "original, default params" in svg and 'stroke-dasharray="5,4"' in svg  # the baseline's line
    best = re.search(r'<polyline class="best" points="([^"]+)"', svg)
    assert best is not None
    steps = [tuple(map(float, p.split(","))) for p in best.group(1).split()]
    assert [y for _, y in steps][::2] == sorted([y for _, y in steps][::2])  # the best so far only falls
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<script" not in html and len(circles(html)) == 5


@pytest.mark.parametrize(
    ("lo", "hi", "want"),
    [(0, 100_000, [0, 20_000, 40_000, 60_000, 80_000, 100_000]), (0.93, 1.07, [0.95, 1.0, 1.05]), (3, 3, [3])],
)
def test_ticks_are_round_values_inside_the_range(lo, hi, want):
    got = ticks(lo, hi)
    assert got == pytest.approx(want) and all(lo <= t <= hi for t in got)
