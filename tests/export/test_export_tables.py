"""results.csv, the kernel_tuner caches and the T4 file: every stored result, written a row at a time."""

from __future__ import annotations

import csv
import json
import os
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from kt_tui import cli
from kt_tui.config import load_settings
from kt_tui.engine.backend import BackendChoice
from kt_tui.export import ExportError, export_session
from kt_tui.export.tables import kt_result
from kt_tui.front.session import load_kernel_spec, new_session, read_kernel_file
from kt_tui.kernel.spec import version_hash
from kt_tui.store import Store

from ..conftest import EXAMPLES

ROOT = Path(__file__).resolve().parents[2]


def session(tmp_path, rows):
    """A vector_add session (small inputs) holding `rows` as results of its original version."""
    kf = read_kernel_file(EXAMPLES / "vector_add.cu")
    _, spec = load_kernel_spec(kf, None, None)
    spec = replace(spec, sizes={"n": 4096})
    db = tmp_path / "s.db"
    store = Store(db)
    sid = new_session(store, load_settings({"db": str(db)}), kf, spec, BackendChoice("pycuda", "FAKE GPU"))
    vid = version_hash(kf.source, spec)
    store.add_results(sid, vid, "sweep:1", rows)
    best = min((r for r in rows if r["status"] == "ok"), key=lambda r: r["time_ms"])
    store.update_session(sid, state="finished", best_ms=best["time_ms"], best_key=best["key"], best_version=vid)
    return store, sid, vid


def row(i, status="ok", **extra):
    return {
        "key": str(i),
        "params": {"block_size_x": i},
        "time_ms": 1.0 + i % 7 if status == "ok" else None,
        "times": [1.0, 2.0],
        "status": status,
        "verified": True if status == "ok" else None,
        "compile_ms": 3.0,
        "source": "measured",
        **extra,
    }


def test_every_result_is_a_row_of_the_csv_and_an_entry_of_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KT_TUI_DATA_DIR", str(tmp_path / "data"))
    rows = [row(i) for i in range(1, 2001)] + [row(-5, "compile_error", error="=cmd|' /C calc'!A0")]
    rows += [row(9000, "runtime_error", error="-- launch failed"), row(9001, "invalid")]
    store, sid, vid = session(tmp_path, rows)
    out = export_session(store, sid, tmp_path / "out")
    folder = tmp_path / "out"
    assert str(folder / "results.csv") in out["files"]
    with open(folder / "results.csv", newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert len(table) == len(rows)
    assert [r["key"] for r in table] == [r["key"] for r in rows]
    assert table[0]["block_size_x"] == "1" and float(table[0]["time_ms"]) == 2.0 and table[0]["status"] == "ok"
    bad = {r["key"]: r for r in table}
    assert bad["-5"]["status"] == "compile_error" and bad["-5"]["time_ms"] == "" and bad["-5"]["block_size_x"] == "-5"
    assert bad["-5"]["error"].startswith("'=")  # a spreadsheet shows it as text, not a formula
    assert bad["9000"]["error"] == "'-- launch failed"
    cache = json.loads((folder / "cache" / f"vector_add-{vid}.json").read_text())["cache"]
    assert len(cache) == len(rows)
    assert cache["-5"]["time"] == "CompilationFailedConfig" and cache["9000"]["time"] == "RuntimeFailedConfig"
    assert cache["9001"]["time"] == "InvalidConfig"
    assert cache["7"] == {
        "block_size_x": 7,
        "time": 1.0,
        "times": [1.0, 2.0],
        "compile_time": 3.0,
        "benchmark_time": 0,
        "framework_time": 0,
        "strategy_time": 0,
        "verification_time": 0,
        "timestamp": cache["7"]["timestamp"],
    }
    t4 = json.loads((folder / "cache" / f"vector_add-{vid}.t4.json").read_text())
    assert len(t4["results"]) == 2000 and t4["schema_version"]


def test_a_t4_result_is_what_kernel_tuner_writes():
    from kt_tui.export.tables import kt_result, t4_result
    from kt_tui.gpu.ktimport import load

    load()
    from kernel_tuner.file_utils import get_t4_results

    tune_params = {"block_size_x": [32, 64], "tile": [1, 2]}
    results = [
        kt_result({"block_size_x": 32, "tile": 2}, 1.5, [1.4, 1.6], 20.0, "2026-11-26 01:02:03"),
        kt_result({"tile": 1, "block_size_x": 64, "extra": 3}, 0.5, [], 0, None),
        {
            k: v
            for k, v in kt_result({"block_size_x": 64, "tile": 2}, 2.0, [2.0], 1.0, None).items()
            if k != "timestamp"
        },
    ]
    assert [t4_result(r, tune_params) for r in results] == get_t4_results(results, tune_params, "time")["results"]


def test_the_t4_file_is_kernel_tuners_own_and_an_export_loads_no_kernel_tuner(tmp_path):
    """The export runs in a fresh process: kernel_tuner (and a GPU backend it imports) stays unloaded."""
    import subprocess
    import sys

    from kt_tui.gpu.ktimport import load

    load()
    from kernel_tuner.file_utils import get_t4_results

    store, sid, vid = session(tmp_path, [row(i) for i in range(1, 30)])
    code = (
        "import sys; from kt_tui.store import Store; from kt_tui.export import export_session; "
        f"export_session(Store({str(store.path)!r}), {sid!r}, {str(tmp_path / 'out')!r}); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('kernel_tuner', 'pycuda', 'cupy', 'matplotlib')))"
    )
    env = {**os.environ, "KT_TUI_DATA_DIR": str(tmp_path / "data"), "KT_TUI_CONFIG_DIR": str(tmp_path / "cfg")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
    t4 = json.loads((tmp_path / "out" / "cache" / f"vector_add-{vid}.t4.json").read_text())
    spec = store.version(sid, vid)
    tune_params = json.loads(spec["spec_json"])["tune_params"]
    want = get_t4_results([kt_result({"block_size_x": 1}, 2.0, [1.0, 2.0], 3.0, "t")], tune_params, "time")
    assert t4.keys() == want.keys() and {k: t4[k] for k in want if k != "results"} == {
        k: v for k, v in want.items() if k != "results"
    }
    assert len(t4["results"]) == 29


def test_the_t4_results_are_kernel_tuners_of_the_cache_entries(tmp_path, monkeypatch):
    """Written a page at a time, with and without parameters that are not tunable (measurements then)."""
    from kt_tui.gpu.ktimport import load

    load()
    from kernel_tuner.file_utils import get_t4_results

    monkeypatch.setenv("KT_TUI_DATA_DIR", str(tmp_path / "data"))
    rows = [row(i, **({"params": {"block_size_x": i, "extra": i / 3}} if i % 7 == 0 else {})) for i in range(1, 95)]
    rows += [row(200, "runtime_error"), row(201, times=[float("nan"), 1.0])]
    store, sid, vid = session(tmp_path, rows)
    export_session(store, sid, tmp_path / "out")
    cache = json.loads((tmp_path / "out" / "cache" / f"vector_add-{vid}.json").read_text())
    t4 = json.loads((tmp_path / "out" / "cache" / f"vector_add-{vid}.t4.json").read_text())
    measured = [e for e in cache["cache"].values() if not isinstance(e["time"], str)]
    assert len(measured) == 95 and measured[-1]["times"] == [None, 1.0]
    assert t4["results"] == get_t4_results(measured, cache["tune_params"], "time")["results"]
    assert {"name": "extra", "value": 7 / 3, "unit": ""} in t4["results"][6]["measurements"]


def test_a_result_whose_stored_parameters_are_not_json_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("KT_TUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("KT_TUI_CONFIG_DIR", str(tmp_path / "cfg"))
    store, sid, vid = session(tmp_path, [row(i) for i in range(1, 20)])
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE results SET params = '{\"block_size_x\": 1' WHERE key = '5'")
    with pytest.raises(ExportError, match="result '5' of version .*: its stored parameters are not a JSON object"):
        export_session(store, sid, tmp_path / "out")
    monkeypatch.setenv("KT_TUI_DB", str(store.path))
    assert cli.main(["export", sid, "--out", str(tmp_path / "out2")]) == 2
    err = capsys.readouterr().err
    assert "stored parameters are not a JSON object" in err and "Traceback" not in err


def test_the_plain_rows_come_a_page_at_a_time_in_the_order_stored_of_one_session(tmp_path):
    store = Store(tmp_path / "s.db")
    for i in range(23):  # two sessions' results interleaved
        store.add_results("s1", "v", "r", [row(i)])
        store.add_results("s2", "v", "r", [row(100 + i)])
    store.add_results("s1", "v", "r", [row(3, time_ms=0.25)])  # an update keeps its place
    got = list(store.result_columns("s1", ("key", "time_ms"), size=5))
    assert [k for k, _ in got] == [str(i) for i in range(23)] and got[3][1] == 0.25
    with pytest.raises(ValueError):
        list(store.result_columns("s1", ("key; DROP TABLE results",)))


def test_a_cachefile_on_disk_is_checked_a_line_at_a_time(tmp_path):
    from kt_tui.export.tables import CacheFile, _is_cache
    from kt_tui.gpu.ktimport import load

    load()
    from kernel_tuner.util import close_cache, store_cache

    header = {"device_name": "GPU", "kernel_name": "k", "tune_params_keys": ["x"], "tune_params": {"x": [1, 2]}}
    kt = tmp_path / "kt.json"  # as kernel_tuner's process_cache, store_cache and close_cache write one
    kt.write_text(json.dumps({**header, "cache": {}}, indent="")[:-3])
    assert not _is_cache(kt)  # open: no entry yet
    cache: dict = {}
    for x in (1, 2):
        store_cache(str(x), {"x": x, "time": 0.5 * x, "times": [float("nan")]}, str(kt), cache)
    assert not _is_cache(kt)  # open: it ends with a comma
    close_cache(str(kt))
    assert _is_cache(kt) and len(json.loads(kt.read_text().replace("NaN", "0"))["cache"]) == 2
    ours = tmp_path / "ours.json"
    with CacheFile(ours, header) as f:
        for x in (1, 2, 3):
            f.add(str(x), {"x": x, "time": 1.0})
    assert _is_cache(ours) and len(json.loads(ours.read_text())["cache"]) == 3
    with CacheFile(tmp_path / "empty.json", header):
        pass
    assert _is_cache(tmp_path / "empty.json")
    lines = ours.read_text().splitlines()
    for bad in (
        lines[:-1],  # not closed
        lines[:-3] + [lines[-3] + ","] + lines[-2:],  # a comma before the closing brace
        lines[:-3] + [lines[-3].rstrip(",")[:-2]] + lines[-2:],  # a broken entry
        lines[:-4] + [lines[-4].rstrip(",")] + lines[-3:],  # a comma missing
        lines[:-3] + ['"9": 3'] + lines[-2:],  # an entry that is not an object
        lines + ["{}"],  # something after the end
    ):
        (tmp_path / "bad.json").write_text("\n".join(bad) + "\n")
        assert not _is_cache(tmp_path / "bad.json"), bad[-4:]
    (tmp_path / "one-line.json").write_text(json.dumps({**header, "cache": {"1": {"x": 1}}}))
    assert not _is_cache(tmp_path / "one-line.json")  # laid out otherwise: the stored results are written instead


def test_checking_a_big_cachefile_holds_a_line_of_it_not_the_file(tmp_path):
    import tracemalloc

    from kt_tui.export.tables import CacheFile, _is_cache

    path = tmp_path / "big.json"
    with CacheFile(path, {"kernel_name": "k"}) as f:
        for x in range(50_000):
            f.add(str(x), {"x": x, "time": 1.0, "times": [1.0] * 7, "timestamp": "2026-11-26 01:02:03"})
    tracemalloc.start()
    try:
        assert _is_cache(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000 < path.stat().st_size / 5, peak
