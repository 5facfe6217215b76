"""Large sessions are read without decoding every result: counts, keys, the fastest rows and one
row by key come from indexed queries (issue 14)."""

import json
import sqlite3
from dataclasses import asdict

from kt_tui.store import Store
from kt_tui.store.db import SCHEMA_VERSION


def _result(key, t, status="ok", verified=True):
    return {
        "key": key,
        "params": {"x": int(key)},
        "status": status,
        "time_ms": t,
        "times": [t],
        "verified": verified,
        "verdicts": [{"output": "c", "ok": bool(verified)}],
    }


def _filled(tmp_path, n=50):
    store = Store(tmp_path / "s.db")
    sid = store.create_session(kernel_name="k")
    store.add_results(sid, "v1", "r1", [_result(str(i), 100.0 - i) for i in range(n)])
    store.add_results(sid, "v1", "r2", [_result("900", None, "compile_error", None), _result("901", 0.01, "ok", False)])
    store.add_results(sid, "v2", "r3", [_result("7", 0.5, "ok", None)])
    return store, sid


def test_counts_keys_and_single_rows_are_read_by_query(tmp_path, monkeypatch):
    store, sid = _filled(tmp_path)
    decoded = []
    real = json.loads
    monkeypatch.setattr(json, "loads", lambda s, *a, **k: decoded.append(s) or real(s, *a, **k))
    assert store.count_results(sid) == 53 and store.count_results(sid, "v1") == 52
    assert store.count_results(sid, "v1", run="r2") == 2 and store.count_results(sid, "v1", measured=True) == 51
    known = store.known(sid, "v1")
    assert "3" in known and "70" not in known and len(known) == 52
    assert set(known) == {str(i) for i in range(50)} | {"900", "901"}
    assert store.workers(sid) == set()
    store.add_results(sid, "v3", "r4", [dict(_result(str(i), 1.0), worker=f"gpu{i}") for i in range(3)])
    assert store.workers(sid) == {"gpu0", "gpu1", "gpu2"} and len(store.workers(sid, limit=2)) == 2
    assert decoded == []  # nothing above decoded a row
    assert known["3"].params == {"x": 3} and known.get("70") is None
    assert len(decoded) == 3  # params, times and verdicts of one row


def test_the_fastest_rows_come_first_and_wrong_ones_last(tmp_path):
    store, sid = _filled(tmp_path)
    rows = store.fastest(sid, 3)
    assert [r.key for r in rows] == ["7", "49", "48"]  # "901" ran fastest but was found wrong
    every = store.fastest(sid, 100)
    assert len(every) == 53 and {r.key for r in every[-2:]} == {"900", "901"}
    assert next(store.by_time(sid, "v1")).key == "901"  # by_time: ran, verdict left to the caller
    points = [p for page in store.plot_pages(sid, size=20) for p in zip(*page)]
    assert len(points) == 53 and points[0] == ("v1", "0", 100.0)
    assert ("v1", "900", None) in points and ("v1", "901", None) in points


def test_the_worker_gets_keys_times_and_undecoded_params(tmp_path):
    from kt_tui.gpu.results import as_kt_result

    store, sid = _filled(tmp_path)
    known = store.known_for_worker(sid, "v1")
    assert len(known) == 52 and asdict(known["3"]) == {"params": '{"x": 3}', "time_ms": 97.0, "status": "ok"}
    assert as_kt_result(known["3"]) == {"x": 3, "time": 97.0}
    assert as_kt_result(known["900"])["time"] == 1e20


def test_a_database_made_before_the_index_gets_it_on_open(tmp_path):
    db = tmp_path / "old.db"
    store, sid = _filled(tmp_path)
    store.db.conn.close()
    (tmp_path / "s.db").rename(db)
    with sqlite3.connect(db) as conn:  # as schema 2 left it: no time index
        conn.execute("DROP INDEX results_by_time")
        conn.execute("DROP INDEX results_by_worker")
        conn.execute("PRAGMA user_version = 2")
    reopened = Store(db)
    with sqlite3.connect(db) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")]
        assert "results_by_time" in names
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        plan = " ".join(
            str(r)
            for r in conn.execute(
                "EXPLAIN QUERY PLAN SELECT key FROM results WHERE session = ? ORDER BY time_ms", [sid]
            )
        )
        assert "results_by_time" in plan
        assert "results_by_worker" in names
        plan = " ".join(
            str(r)
            for r in conn.execute(
                "EXPLAIN QUERY PLAN SELECT DISTINCT worker FROM results WHERE session = ? AND worker IS NOT NULL", [sid]
            )
        )
        assert "results_by_worker" in plan
    assert reopened.count_results(sid) == 53 and [r.key for r in reopened.fastest(sid, 1)] == ["7"]


def test_listing_sessions_loads_neither_sqlite_utils_nor_numpy_nor_pydantic_nor_rich(tmp_path):
    import subprocess
    import sys

    store, sid = _filled(tmp_path)
    heavy = ("sqlite_utils", "numpy", "pydantic", "rich")
    code = (
        "import sys; from kt_tui.cli import main; rc = main(sys.argv[2:] + ['--db', sys.argv[1]]); "
        f"print(rc, *[m in sys.modules for m in {heavy!r}], file=sys.stderr)"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "KT_TUI_DATA_DIR": str(tmp_path),
        "KT_TUI_CONFIG_DIR": str(tmp_path),
    }
    for args in (["sessions", "--json"], ["sessions"]):  # stdout is a pipe: the table
        out = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "s.db"), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert out.stderr.strip().splitlines()[-1] == "0 False False False False"
    assert out.stdout.splitlines()[1].split() == [
        "id",
        "kernel",
        "created",
        "state",
        "gpu",
        "baseline",
        "ms",
        "best",
        "ms",
    ]
    assert out.stdout.splitlines()[2].split()[0] == sid
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "s.db"), "sessions", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert json.loads(out.stdout)[0]["id"] == sid


def test_the_sessions_table_is_aligned_and_on_one_line_per_session(tmp_path, capsys):
    from kt_tui.front.listing import list_sessions

    store = Store(tmp_path / "s.db")
    store.create_session(
        id="a1",
        kernel_path="/k/very_long_kernel_name.cu",
        state="finished",
        gpu="NVIDIA H200",
        simulated=1,
        baseline_ms=0.08,
        best_ms=0.05,
        created="2026-11-20 10:00:00",
    )
    store.create_session(
        id="b2",
        kernel_path="/k/x\nforged line.cu",
        state="stopped",
        gpu=None,
        simulated=0,
        created="2026-11-21 10:00:00",
    )
    assert list_sessions(str(tmp_path / "s.db"), False) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"kt-tui sessions in {tmp_path / 's.db'}" and len(lines) == 4
    assert lines[2].split("  ")[0] == "b2" and "x?forged line.cu" in lines[2]
    assert "very_long_kernel_name.cu" in lines[3] and "SIMULATED NVIDIA H200" in lines[3]
    assert lines[3].endswith("0.0800   0.0500") and lines[1].index("best ms") + 7 == len(lines[3])
    Store(tmp_path / "empty.db")
    assert list_sessions(str(tmp_path / "empty.db"), False) == 0
    assert capsys.readouterr().out.strip() == f"no sessions yet in {tmp_path / 'empty.db'}"


def test_a_current_database_missing_an_index_gets_it_on_open(tmp_path):
    store, sid = _filled(tmp_path)
    store.conn.execute("DROP INDEX results_by_worker")
    store.conn.commit()
    Store(tmp_path / "s.db")
    with sqlite3.connect(tmp_path / "s.db") as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")]
    assert "results_by_worker" in names


def test_reads_given_a_mark_see_only_the_results_stored_before_it(tmp_path):
    store, sid = _filled(tmp_path)
    mark = store.last_result()
    store.add_results(sid, "v1", "r9", [_result("500", 0.001), _result("501", None, "crash", None)])
    assert store.count_results(sid, upto=mark) == 53 and store.count_results(sid) == 55
    assert [r.key for r in store.fastest(sid, 1, upto=mark)] == ["7"] and store.fastest(sid, 1)[0].key == "500"
    assert len(store.fastest(sid, 100, upto=mark)) == 53
    pages = list(store.plot_pages(sid, upto=mark, size=10))
    assert [len(keys) for _, keys, _ in pages] == [10] * 5 + [3]
    assert [k for _, keys, _ in pages for k in keys] == [str(i) for i in range(50)] + ["900", "901", "7"]
    assert [k for _, keys, _ in store.plot_pages(sid) for k in keys][-2:] == ["500", "501"]
    assert Store(tmp_path / "empty.db").last_result() == 0


def test_results_are_stored_as_the_same_json_text_as_json_dumps(tmp_path):
    from kt_tui.store.jsontext import dumps as _dumps

    values = [
        {"block_size_x": 128, "name": 'tile "é" \\ \n', "f": 0.1, "big": 2**70, "neg": -3, "b": True},
        [1.0, 1e-300, 1.5e300, float("nan"), float("inf"), -float("inf"), 0.30000000000000004],
        [{"output": "c", "ok": False, "max_abs_err": 1e20, "first_bad": None}],
        None,
        [],
        {},
    ]
    assert [_dumps(v) for v in values] == [json.dumps(v) for v in values]
    store = Store(tmp_path / "s.db")
    sid = store.create_session(kernel_name="k")
    store.add_results(
        sid,
        "v",
        "r",
        [{"key": "1", "params": values[0], "status": "ok", "time_ms": 1.0, "times": values[1], "verdicts": values[2]}],
    )
    row = store.conn.execute("SELECT params, times, verdicts FROM results").fetchone()
    assert row == (json.dumps(values[0]), json.dumps(values[1]), json.dumps(values[2]))
    assert store.result(sid, "v", "1").params == values[0]


def test_listing_finds_the_database_where_the_settings_do(tmp_path, monkeypatch, capsys):
    import pytest

    from kt_tui.cli import main
    from kt_tui.config import load_settings
    from kt_tui.paths import session_db

    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    monkeypatch.delenv("KT_TUI_DB", raising=False)
    cases = [
        ("", None, None),
        ('db = "/from/config.db"\n', None, None),
        ('db = ""\n', None, None),
        ('db = "/from/config.db"\n', "/from/env.db", None),
        ('db = "/from/config.db"\n', "", "/flag.db"),
        ('theme = "kt-dark"\n', "/from/env.db", None),
    ]
    for text, env, flag in cases:
        config.write_text(text)
        if env is None:
            monkeypatch.delenv("KT_TUI_DB", raising=False)
        else:
            monkeypatch.setenv("KT_TUI_DB", env)
        assert session_db(flag) == load_settings({"db": flag}).db, (text, env, flag)
    monkeypatch.delenv("KT_TUI_DB", raising=False)
    for text, problem in (("db = 5\n", "db: must be a string, not 5"), ("db = [\n", "not valid TOML")):
        config.write_text(text)
        with pytest.raises(Exception, match=problem):
            load_settings({})
        assert main(["sessions", "--json"]) == 2
        err = capsys.readouterr().err
        assert problem in err and str(config) in err and len(err.strip().splitlines()) == 1


def test_a_current_database_is_read_and_written_without_sqlite_utils(tmp_path):
    import subprocess
    import sys

    Store(tmp_path / "s.db")  # made (and migrated) here, with sqlite-utils
    code = """if True:
        import json, sys
        from kt_tui.store import Store
        s = Store(sys.argv[1])
        sid = s.create_session(kernel_name="k", strategy="sweep", state="new")
        s.update_session(sid, state="running", best_ms=1.5)
        s.add_version(sid, "v", "src", "toml", {"a": [1, 2]}, label="original")
        s.add_version(sid, "v", "src2", "toml", {"a": [3]}, label="original")
        s.update_version(sid, "v", "toml2", {"b": 1})
        s.put_run(sid, "r", version="v", kind="tune", state="running")
        s.put_run(sid, "r", state="finished")
        s.add_results(sid, "v", "r", [{"key": "1", "params": {"x": 1}, "status": "ok", "time_ms": 2.0}])
        s.mark_result(sid, "v", "1", verified=False, first_bad="out[0]")
        s.open_gate(sid, "g", "sweep", "Tune?", {"n": 1})
        s.decide_gate(sid, "g", {"choice": "approve"})
        s.put_step(sid, "1", title="t", state="planned")
        s.put_step(sid, "1", state="done")
        s.add_event(sid, "note", {"text": "hi"})
        row = s.add_llm_call(sid, "k", {"purpose": "plan", "messages": [{"role": "user"}], "state": "running"})
        s.add_llm_call(sid, "k", {"row": row, "purpose": "plan", "messages": [], "reply": "ok", "state": "done"})
        s.put_llm_result(sid, "k", {"v": 1}, "text", "llm")
        s.add_check(sid, "v", {"key": "1", "label": "n=37", "status": "ok", "ok": True})
        try:
            s.update_session("nope", state="x")
        except LookupError:
            pass
        from dataclasses import asdict
        out = {"session": s.session(sid), "version": s.version(sid, "v"), "run": asdict(s.run(sid, "r")),
               "result": asdict(s.result(sid, "v", "1")), "gate": asdict(s.gate(sid, "g")), "steps": s.steps(sid),
               "events": [e["data"] for e in s.events(sid)], "calls": s.llm_calls(sid),
               "llm": s.llm_result(sid, "k"), "checks": [asdict(c) for c in s.checks(sid)]}
        print(json.dumps(out, default=str))
        print("sqlite_utils" in sys.modules, file=sys.stderr)
    """
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "s.db")], capture_output=True, text=True, timeout=120
    )
    assert out.stderr.strip().splitlines()[-1] == "False", out.stderr
    got = json.loads(out.stdout)
    assert (got["session"]["state"], got["session"]["best_ms"], got["session"]["strategy"]) == ("running", 1.5, "sweep")
    assert (got["version"]["source"], got["version"]["spec_toml"], json.loads(got["version"]["spec_json"])) == (
        "src2",
        "toml2",
        {"b": 1},
    )
    assert (got["run"]["kind"], got["run"]["state"]) == ("tune", "finished")  # an upsert keeps what it is not given
    assert (got["result"]["verified"], got["result"]["first_bad"], got["result"]["time_ms"]) == (False, "out[0]", 2.0)
    assert got["gate"]["decision"] == {"choice": "approve"} and got["gate"]["body"] == {"n": 1}
    assert [(p["title"], p["state"], p["seq"]) for p in got["steps"]] == [("t", "done", 0)]
    assert got["events"] == [{"text": "hi"}] and got["llm"]["value"] == {"v": 1}
    assert [(c["id"], c["reply"], c["state"], c["messages"]) for c in got["calls"]] == [(1, "ok", "done", [])]
    assert [(c["label"], c["ok"]) for c in got["checks"]] == [("n=37", True)]
