"""An export of a big session stays small where it is drawn and complete where it is data."""

from __future__ import annotations

import json

import numpy as np

from kt_tui.config import load_settings
from kt_tui.engine.backend import BackendChoice
from kt_tui.export import export_session
from kt_tui.export.report import PLOT_BINS, steps, thin
from kt_tui.front.session import load_kernel_spec, new_session, read_kernel_file
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import version_hash
from kt_tui.store import Store

from ..conftest import EXAMPLES


def test_a_thinned_cloud_keeps_its_extremes_and_the_staircase_its_values():
    rng = np.random.default_rng(1)
    xs = list(range(100_000))
    ys = list(rng.random(100_000) + 1.0)
    dx, dy = thin(xs, ys)
    assert len(dx) <= 2 * PLOT_BINS and min(dy) == min(ys) and max(dy) == max(ys)
    assert dx == sorted(dx)
    best = list(np.minimum.accumulate(ys))
    sx, sy = steps(xs, best)
    assert len(sx) < 100 and sx[-1] == xs[-1] and sy[-1] == best[-1]
    assert all(best[x] == y for x, y in zip(sx, sy))
    assert thin(xs[:10], ys[:10]) == (xs[:10], ys[:10])


def test_a_session_of_30000_results_exports_every_result_and_a_small_report(tmp_path, monkeypatch):
    monkeypatch.setenv("KT_TUI_DATA_DIR", str(tmp_path / "data"))
    kf = read_kernel_file(EXAMPLES / "vector_add.cu")
    _, spec = load_kernel_spec(kf, None, None)
    db = tmp_path / "s.db"
    store = Store(db)
    from dataclasses import replace

    spec = replace(spec, sizes={"n": 4096})  # small inputs: they are not what this test is about
    sid = new_session(store, load_settings({"db": str(db)}), kf, spec, BackendChoice("pycuda", "FAKE GPU"))
    vid = version_hash(kf.source, spec)
    n = 30_000
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
