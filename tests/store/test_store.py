"""kt_tui.store.db.Store: the SQLite session store."""

import json
import sqlite3
import threading
from dataclasses import replace

import numpy as np
import pytest

from kt_tui.store import Store


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "db" / "sessions.db")


def _result(key, **kw):
    r = {
        "key": key,
        "params": {"block_size_x": int(key)},
        "status": "ok",
        "time_ms": 1.5,
        "times": [1.4, 1.5, 1.6],
        "verified": True,
        "max_abs_err": 0.0,
    }
    r.update(kw)
    return r


# -- sessions ----------------------------------------------------------------------------------
def test_create_list_update_sessions(store):
    a = store.create_session(kernel_path="/k/a.cu", kernel_name="a", strategy="sweep")
    b = store.create_session(id="bbbb0001", kernel_path="/k/b.cu", kernel_name="b")
    assert b == "bbbb0001"
    assert isinstance(a, str) and len(a) == 8 and a != b

    s = store.session(a)
    assert (s["kernel_name"], s["kernel_path"], s["strategy"], s["state"]) == ("a", "/k/a.cu", "sweep", "new")
    assert [x["id"] for x in store.sessions()] == [b, a]  # newest first
    assert store.latest_session()["id"] == b

    store.update_session(a, state="done", best_ms=0.25, best_key="256")
    s = store.session(a)
    assert (s["state"], s["best_ms"], s["best_key"]) == ("done", 0.25, "256")
    assert store.session(b)["state"] == "new"


def test_session_lookup_by_prefix(store):
    for sid in ("abc11111", "abc22222", "def33333"):
        store.create_session(id=sid, kernel_name="k")
    assert store.session("abc11111")["id"] == "abc11111"
    assert store.session("abc1")["id"] == "abc11111"
    assert store.session("d")["id"] == "def33333"
    assert store.session("abc") is None  # ambiguous
    assert store.session("zzz") is None
    assert store.latest_session() is not None


def test_empty_store(store):
    assert store.sessions() == []
    assert store.latest_session() is None
    assert store.session("x") is None


def test_session_prefix_is_literal(store):
    store.create_session(id="abc11111", kernel_name="k")
    assert store.session("a_c") is None
    assert store.session("%") is None


# -- versions ----------------------------------------------------------------------------------
def test_versions_round_trip(store):
    sid = store.create_session(kernel_name="k")
    store.add_version(sid, "v1", "src one", "kernel = 'k'", {"kernel": "k", "n": 1})
    store.add_version(sid, "v2", "src two", "toml2", {"kernel": "k", "n": 2}, parent="v1", label="unrolled")
    v = store.version(sid, "v2")
    assert (v["source"], v["spec_toml"], v["parent"], v["label"]) == ("src two", "toml2", "v1", "unrolled")
    assert json.loads(v["spec_json"]) == {"kernel": "k", "n": 2}
    assert [x["id"] for x in store.versions(sid)] == ["v1", "v2"]
    assert store.version(sid, "v3") is None
    assert store.versions("other") == []

    store.add_version(sid, "v1", "src one again", "t", {})  # upsert, not a second row
    assert [x["id"] for x in store.versions(sid)] == ["v1", "v2"]
    assert store.version(sid, "v1")["source"] == "src one again"


# -- runs and results --------------------------------------------------------------------------
def test_runs_round_trip(store):
    sid = store.create_session(kernel_name="k")
    store.put_run(sid, "r1", version="v1", kind="sweep", state="running", total=6)
    store.put_run(sid, "r1", state="done")
    r = store.run(sid, "r1")
    assert (r.version, r.state, r.total) == ("v1", "done", 6)
    assert [x.id for x in store.runs(sid)] == ["r1"]
    assert store.run(sid, "r2") is None


def test_add_result_and_decode(store):
    sid = store.create_session(kernel_name="k")
    store.add_result(sid, "v1", "r1", _result("128", first_bad=None))
    store.add_result(
        sid,
        "v1",
        "r1",
        _result(
            "256", status="error", time_ms=None, times=None, verified=False, error="wrong result", first_bad="out[3]"
        ),
    )
    store.add_result(sid, "v2", "r2", _result("64", verified=None))
    rows = store.results(sid, "v1")
    assert [r.key for r in rows] == ["128", "256"]
    ok, bad = rows
    assert ok.params == {"block_size_x": 128}
    assert list(ok.times) == [1.4, 1.5, 1.6]
    assert ok.verified is True
    assert (ok.status, ok.time_ms, ok.run) == ("ok", 1.5, "r1")
    assert bad.times is None and bad.verified is False and bad.time_ms is None
    assert (bad.error, bad.first_bad) == ("wrong result", "out[3]")
    assert [r.key for r in store.results(sid)] == ["128", "256", "64"]
    assert store.results(sid, "v2")[0].verified is None
    assert store.results("nobody") == []


def test_add_result_upserts_by_key(store):
    sid = store.create_session(kernel_name="k")
    store.add_result(sid, "v1", "r1", _result("128", status="error", error="timeout", time_ms=None, verified=False))
    store.add_result(sid, "v1", "r2", _result("128", time_ms=0.75, times=[0.75]))
    rows = store.results(sid, "v1")
    assert len(rows) == 1
    r = rows[0]
    assert (r.status, r.time_ms, list(r.times), r.verified, r.run) == ("ok", 0.75, [0.75], True, "r2")
    assert r.error is None
    # the same key under another version is another row
    store.add_result(sid, "v2", "r3", _result("128"))
    assert len(store.results(sid)) == 2


# -- references --------------------------------------------------------------------------------
def _reopened(store):
    store.flush_references()
    return Store(store.path)  # another process: nothing in memory, everything from disk


def test_reference_round_trip(store, tmp_path):
    sid = store.create_session(kernel_name="k")
    assert store.reference(sid, "v1") is None
    outs = {"out": np.arange(10, dtype=np.float32) / 3, "idx": np.array([[1, 2], [3, 4]], dtype=np.int64)}
    store.set_reference(sid, "v1", outs)
    assert store.reference(sid, "v1") is not None  # at once, from memory, while the files are written
    fresh = _reopened(store)
    assert (tmp_path / "db" / "refs" / f"{sid}-v1.out.npy").is_file()  # beside the database, raw .npy
    got = fresh.reference(sid, "v1")
    assert set(got) == {"out", "idx"}
    for k, v in outs.items():
        assert got[k].dtype == v.dtype and got[k].shape == v.shape
        np.testing.assert_array_equal(got[k], v)
    assert isinstance(got["out"], np.memmap)  # read back without a copy
    assert fresh.reference(sid, "v2") is None

    store.set_reference(sid, "v1", {"out": np.zeros(3, np.float64)})  # replaced
    got = _reopened(store).reference(sid, "v1")
    assert list(got) == ["out"] and got["out"].tolist() == [0.0, 0.0, 0.0]


def test_reference_written_in_the_background(store, monkeypatch):
    sid = store.create_session(kernel_name="k")
    release = threading.Event()
    real_save = np.save
    monkeypatch.setattr(np, "save", lambda *a, **k: (release.wait(5), real_save(*a, **k)))
    store.set_reference(sid, "v1", {"out": np.ones(4, np.float32)})  # returns before the file is written
    assert not list(store.refs_dir.glob("*.npy")) if store.refs_dir.exists() else True
    assert store.reference(sid, "v1")["out"].tolist() == [1.0] * 4
    release.set()
    assert _reopened(store).reference(sid, "v1")["out"].tolist() == [1.0] * 4


def test_reference_deleted_file(store, tmp_path):
    sid = store.create_session(kernel_name="k")
    store.set_reference(sid, "v1", {"out": np.ones(4, np.float32)})
    fresh = _reopened(store)
    (store.refs_dir / f"{sid}-v1.out.npy").unlink()
    assert fresh.reference(sid, "v1") is None


def test_reference_altered_file(store):
    sid = store.create_session(kernel_name="k")
    store.set_reference(sid, "v1", {"out": np.ones(64, np.float32)})
    fresh = _reopened(store)
    path = store.refs_dir / f"{sid}-v1.out.npy"
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF
    path.write_bytes(bytes(data))
    assert fresh.reference(sid, "v1") is None


def test_reference_old_npz_is_taken_again(store):
    """An .npz reference comes from a kt-tui whose inputs were generated otherwise: it reads as missing."""
    import hashlib
    import io

    sid = store.create_session(kernel_name="k")
    buf = io.BytesIO()
    np.savez(buf, out_o=np.arange(3.0))
    store.refs_dir.mkdir(parents=True)
    (store.refs_dir / f"{sid}-v.npz").write_bytes(buf.getvalue())
    store.db["refs"].insert(
        {
            "session": sid,
            "version": "v",
            "file": f"{sid}-v.npz",
            "sha256": hashlib.sha256(buf.getvalue()).hexdigest(),
            "summary": "{}",
        }
    )
    assert store.reference(sid, "v") is None


def test_reference_from_inputs_generated_otherwise_is_taken_again(tmp_path, monkeypatch):
    from kt_tui.kernel import inputs

    s = Store(tmp_path / "a.db")
    sid = s.create_session(kernel_name="k")
    s.set_reference(sid, "v1", {"out": np.arange(4.0)})
    s.flush_references()
    assert Store(tmp_path / "a.db").reference(sid, "v1")["out"].tolist() == [0.0, 1.0, 2.0, 3.0]
    monkeypatch.setattr(inputs, "GENERATOR", inputs.GENERATOR + "-next")
    assert Store(tmp_path / "a.db").reference(sid, "v1") is None


def test_reference_custom_refs_dir(tmp_path):
    s = Store(tmp_path / "a.db", refs_dir=tmp_path / "elsewhere")
    s.set_reference("s", "v", {"o": np.ones(2)})
    s.flush_references()
    assert (tmp_path / "elsewhere" / "s-v.o.npy").is_file()
    assert s.reference("s", "v")["o"].tolist() == [1.0, 1.0]


def test_results_batch_is_one_transaction(store):
    sid = store.create_session(kernel_name="k")
    store.add_results(sid, "v1", "r1", [_result("32"), _result("64")])
    with pytest.raises(KeyError):
        store.add_results(sid, "v1", "r1", [_result("128"), {"key": "256"}])  # the second is broken
    assert [r.key for r in store.results(sid)] == ["32", "64"]


def test_result_committed_at_once_survives_a_kill(tmp_path):
    import subprocess
    import sys

    db = tmp_path / "k.db"
    code = (
        "import os, sys; from kt_tui.store import Store; s = Store(sys.argv[1]); sid = s.create_session(id='s1');"
        "[s.add_result(sid, 'v', 'r', {'key': str(i), 'params': {'x': i}, 'status': 'ok', 'time_ms': 1.0})"
        " for i in range(50)]; os.kill(os.getpid(), 9)"
    )
    subprocess.run([sys.executable, "-c", code, str(db)], check=False)
    assert len(Store(db).results("s1")) == 50


# -- gates and events --------------------------------------------------------------------------
def test_gates_open_decide_read(store):
    sid = store.create_session(kernel_name="k")
    assert store.gate(sid, "g1") is None
    store.open_gate(sid, "g1", "confirm", "Run the sweep?", {"configs": 6})
    store.open_gate(sid, "g2", "pick", "Keep which?", {"options": ["a", "b"]})
    g = store.gate(sid, "g1")
    assert (g.kind, g.title, g.body, g.state, g.decision) == (
        "confirm",
        "Run the sweep?",
        {"configs": 6},
        "pending",
        None,
    )

    store.decide_gate(sid, "g1", {"choice": "yes", "value": 3})
    g = store.gate(sid, "g1")
    assert g.state == "decided"
    assert g.decision == {"choice": "yes", "value": 3}
    assert g.decided
    assert store.gate(sid, "g2").state == "pending"
    assert [x.key for x in store.gates(sid)] == ["g1", "g2"]
    assert [x.seq for x in store.gates(sid)] == [0, 1]


def test_events_in_order(store):
    sid = store.create_session(kernel_name="k")
    other = store.create_session(kernel_name="k")
    for i in range(5):
        store.add_event(sid, f"e{i}", {"i": i})
    store.add_event(other, "x", {"i": -1})
    evs = store.events(sid)
    assert [e["kind"] for e in evs] == ["e0", "e1", "e2", "e3", "e4"]
    assert [e["data"] for e in evs] == [{"i": i} for i in range(5)]
    assert all(e["session"] == sid for e in evs)
    assert [e["kind"] for e in store.events(other)] == ["x"]


# -- the database file -----------------------------------------------------------------------
def test_wal_mode(store):
    con = sqlite3.connect(store.path)
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    finally:
        con.close()


def test_two_instances_share_data(tmp_path):
    path = tmp_path / "shared.db"
    s1 = Store(path)
    sid = s1.create_session(kernel_name="k")
    s1.add_event(sid, "hello", {"a": 1})
    s2 = Store(path)  # re-opens an existing database (no re-creation)
    assert s2.session(sid)["kernel_name"] == "k"
    assert [e["kind"] for e in s2.events(sid)] == ["hello"]
    s2.add_result(sid, "v", "r", _result("32"))
    assert [r.key for r in s1.results(sid)] == ["32"]
    s1.add_event(sid, "again", {})
    assert [e["kind"] for e in s2.events(sid)] == ["hello", "again"]


def test_store_from_two_threads(store):
    sid = store.create_session(kernel_name="k")
    errors, dbs = [], []

    def work(tag):
        try:
            dbs.append(store.db)
            for i in range(20):
                store.add_event(sid, tag, {"i": i})
            store.add_result(sid, "v", "r", _result(str(len(tag) * 100)))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in ("a", "bb")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len({id(d) for d in dbs}) == 2 and store.db not in dbs  # one connection per thread
    evs = store.events(sid)
    assert len(evs) == 40
    assert [e["data"]["i"] for e in evs if e["kind"] == "a"] == list(range(20))
    assert sorted(r.key for r in store.results(sid)) == ["100", "200"]


def test_a_database_of_a_newer_schema_is_refused_and_not_restamped(tmp_path, capsys):
    from kt_tui.cli import main
    from kt_tui.store.db import SCHEMA_VERSION

    db = tmp_path / "newer.db"
    Store(db).create_session(kernel_path="k.cu", kernel_name="k", strategy="sweep")
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    assert main(["sessions", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert f"made by a newer kt-tui (schema {SCHEMA_VERSION + 5}, this one reads up to {SCHEMA_VERSION})" in err
    assert len(err.strip().splitlines()) == 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 5


def test_a_database_of_another_program_is_refused_and_left_alone(tmp_path, capsys):
    from kt_tui.cli import main

    db = tmp_path / "other.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
    assert main(["resume", "--auto", "--db", str(db)]) == 2
    assert "is not a kt-tui session database" in capsys.readouterr().err
    with sqlite3.connect(db) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert names == ["invoices"]


def test_results_fresh_after_every_write(store):
    sid = store.create_session(kernel_name="k")
    store.add_result(sid, "v1", "r1", _result("32"))
    first = store.results(sid)
    first[0].params["block_size_x"] = 0  # a caller changing its copy changes nothing stored
    first[0] = replace(first[0], status="changed")
    assert store.results(sid)[0].status == "ok" and store.results(sid)[0].params == {"block_size_x": 32}
    store.add_result(sid, "v1", "r1", _result("64"))
    assert [r.key for r in store.results(sid)] == ["32", "64"]
    assert [r.key for r in store.results(sid, "v1")] == ["32", "64"]
    store.mark_result(sid, "v1", "32", status="wrong_result")
    assert store.results(sid, "v1")[0].status == "wrong_result"
    other = store.create_session(kernel_name="k2")
    store.add_result(other, "v1", "r1", _result("128"))
    assert len(store.results(sid)) == 2 and len(store.results(other)) == 1


def test_results_seen_fresh_after_another_connection_writes(tmp_path):
    a, b = Store(tmp_path / "s.db"), Store(tmp_path / "s.db")  # two processes, say
    sid = a.create_session(kernel_name="k")
    a.add_result(sid, "v", "r", _result("32"))
    assert len(a.results(sid)) == 1 and len(b.results(sid)) == 1
    b.add_result(sid, "v", "r", _result("64"))
    assert [r.key for r in a.results(sid)] == ["32", "64"]
    b.mark_result(sid, "v", "32", status="wrong_result")
    assert a.results(sid)[0].status == "wrong_result"
