"""An export of a big session stays small where it is drawn and complete where it is data."""

from __future__ import annotations

import csv
import json
import re

import numpy as np

from kt_tui.config import load_settings
from kt_tui.engine.backend import BackendChoice
from kt_tui.export import export_session
from kt_tui.export.plot import CAP, pick, shares
from kt_tui.front.session import load_kernel_spec, new_session, read_kernel_file
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import version_hash
from kt_tui.store import Store

from ..conftest import EXAMPLES


def test_the_points_drawn_keep_every_best_so_far_and_the_extremes_within_the_cap():
    rng = np.random.default_rng(1)
    y = rng.random(100_000) + 1.0
    keep = pick(y, 500)
    assert len(keep) == 500 and list(keep) == sorted(set(keep))
    assert {int(np.argmin(y)), int(np.argmax(y))} <= set(keep)
    best = np.minimum.accumulate(y)
    changes = {0} | {i for i in range(1, len(y)) if best[i] < best[i - 1]}
    assert changes <= set(keep)
    assert list(pick(y[:10], 500)) == list(range(10))
    falling = np.linspace(10, 1, 5000)  # each one a new best: more steps than the cap
    assert len(pick(falling, 100)) == 100 and {0, 4999} <= set(pick(falling, 100))
    assert list(pick(y, 1)) == [int(np.argmin(y))] and len(pick(y, 0)) == 0 and len(pick(y, 2)) == 2
    assert shares([10, 100_000, 3], 2000) == [10, 1987, 3] and sum(shares([5000, 5000], 2000)) == 2000


def drawn_points(svg: str) -> int:
    """Markers of the plot's scatters (the legend's own markers left out)."""
    groups = re.findall(r'<g class="points"[^>]*>(.*?)</g>', svg, re.S)
    return sum(g.count("<circle") for g in groups)


def test_a_session_of_100000_results_exports_every_result_and_a_small_report(tmp_path, monkeypatch):
    monkeypatch.setenv("KT_TUI_DATA_DIR", str(tmp_path / "data"))
    kf = read_kernel_file(EXAMPLES / "vector_add.cu")
    _, spec = load_kernel_spec(kf, None, None)
    db = tmp_path / "s.db"
    store = Store(db)
    from dataclasses import replace

    spec = replace(spec, sizes={"n": 4096})  # small inputs: they are not what this test is about
    sid = new_session(store, load_settings({"db": str(db)}), kf, spec, BackendChoice("pycuda", "FAKE GPU"))
    vid = version_hash(kf.source, spec)
    n = 100_000
    rows = [
        {
            "key": str(1_000_000 + i),
            "params": {"block_size_x": 1_000_000 + i},
            "time_ms": 1.0 + (i * 7919) % 89,
            "times": [1.0] * 7,
            "status": "ok",
            "verified": True,
            "max_abs_err": 0.0,
            "compile_ms": 10.0,
            "source": "measured",
        }
        for i in range(n)
    ]
    store.add_results(sid, vid, "sweep:1", rows)
    store.update_session(sid, state="finished", best_ms=1.0, best_key="1000000", best_version=vid)
    out = export_session(store, sid, tmp_path / "out")
    folder = tmp_path / "out"
    assert (folder / "report.html").stat().st_size < 2_000_000 and (
        folder / "report-times.svg"
    ).stat().st_size < 1_000_000
    svg, page = (folder / "report-times.svg").read_text(), (folder / "report.html").read_text()
    assert drawn_points(svg) == CAP and f"{CAP} of {n} points drawn" in svg
    assert drawn_points(page) == CAP and f"{CAP} of {n} points drawn" in page
    assert 'href="results.csv"' in page and page.count("<tr>") <= 40
    with open(folder / "results.csv", newline="") as f:
        assert sum(1 for _ in csv.reader(f)) == n + 1
    cache = json.loads((folder / "cache" / f"vector_add-{vid}.json").read_text())
    assert len(cache["cache"]) == n
    from kt_tui.gpu.ktimport import load

    load()
    from kernel_tuner.util import read_cache

    assert len(read_cache(str(folder / "cache" / f"vector_add-{vid}.json"), open_cache=False)["cache"]) == n
    t4 = json.loads((folder / "cache" / f"vector_add-{vid}.t4.json").read_text())
    assert len(t4["results"]) == n
    with np.load(folder / "vector_add.inputs.npz") as npz:
        made = make_args(spec)
        assert all(np.array_equal(npz[f"arg{i}"], np.asarray(a), equal_nan=True) for i, a in enumerate(made))
    assert out["best"]["time_ms"] == 1.0
