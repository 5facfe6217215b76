"""A session database edited by hand or damaged below the spec (text in a time column, a blob for a
kernel, a gate whose body is not JSON, a session without its kernel) is refused by resume and export
in one line naming the table and column (exit 2), not an internal error; the listing still lists it."""

import glob
import shutil
import sqlite3

import pytest

from kt_tui import cli
from kt_tui.store.db import _TABLES
from kt_tui.store.sound import check_session

from ..conftest import EXAMPLES, ROOT

DAMAGE = {
    "sessions.baseline_ms": "update sessions set baseline_ms = 'abc'",
    "sessions.kernel_path": "update sessions set kernel_path = x'ff00'",
    "results.time_ms": "update results set time_ms = 'fast' where rowid = (select max(rowid) from results)",
    "results.verdicts": "update results set verdicts = '[oops'",
    "gates.body": "update gates set body = 'xx'",
    "versions.source": "update versions set source = zeroblob(10)",
    "versions.source ": "update versions set source = NULL",
    "no kernel version": "delete from versions",
    "llm_calls.messages": "insert into llm_calls (session, key, messages, state) select id, 'k', '[oops', 'done' from sessions",
    "llm_results.value": "insert into llm_results (session, key, value) select id, 'k', 'oops' from sessions",
    "events.data": "update events set data = '{oops'",
    "llm_calls.messages ": "insert into llm_calls (session, key, state) select id, 'k', 'done' from sessions",
}


@pytest.fixture(scope="module")
def session_db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("damaged")
    kernel = folder / "vector_add.cu"
    shutil.copy(EXAMPLES / "vector_add.cu", kernel)
    db = folder / "s.db"
    argv = ["run", str(kernel), "--spec", str(EXAMPLES / "vector_add.cu.toml"), "--auto", "--backend", "sim"]
    assert cli.main([*argv, "--sim-cache", str(EXAMPLES / "recorded"), "--llm", "none", "--db", str(db)]) == 0
    return db


def _damaged(session_db, tmp_path, sql: str) -> str:
    db = tmp_path / "damaged.db"
    with sqlite3.connect(session_db) as src, sqlite3.connect(db) as out:
        src.backup(out)
    with sqlite3.connect(db) as c:
        c.execute(sql)
    return str(db)


@pytest.mark.parametrize("what", list(DAMAGE))
def test_resume_and_export_of_a_damaged_row_are_one_line_exit_2(capsys, tmp_path, session_db, what):
    db = _damaged(session_db, tmp_path, DAMAGE[what])
    capsys.readouterr()  # the fixture's run
    resume = ["resume", "--db", db, "--auto", "--backend", "sim", "--sim-cache", str(EXAMPLES / "recorded")]
    export = ["export", "--db", db, "--out", str(tmp_path / "out")]
    for argv in [[*resume, "--llm", "none"]] + ([export] if what != "no kernel version" else []):
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "internal error" not in err and "Traceback" not in err, err
        said = [line for line in err.splitlines() if line.startswith("kt-tui:")]
        assert len(said) == 1 and what.strip() in said[0] and "damaged" in said[0], err
    assert not (tmp_path / "out").exists()


def test_export_of_a_session_without_its_kernel_is_one_line_exit_2(capsys, tmp_path, session_db):
    db = _damaged(session_db, tmp_path, DAMAGE["no kernel version"])
    capsys.readouterr()
    assert cli.main(["export", "--db", db, "--out", str(tmp_path / "out")]) == 2
    assert "internal error" not in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_the_listing_shows_a_session_whose_times_are_not_numbers(capsys, tmp_path, session_db):
    db = _damaged(session_db, tmp_path, "update sessions set baseline_ms = 'abc', best_ms = x'00ff'")
    capsys.readouterr()
    assert cli.main(["sessions", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "vector_add" in out and "abc" not in out


@pytest.mark.parametrize("path", sorted(glob.glob(str(ROOT / "sessions" / "*.db"))))
def test_the_recorded_sessions_are_sound(path):
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as c:
        for (sid,) in c.execute("select id from sessions").fetchall():
            check_session(c, _TABLES, sid, path)


def test_json_that_kt_tui_writes_with_nan_or_infinity_is_sound(tmp_path):
    """Python's json writes a float that is no number as NaN or Infinity (and reads it back); SQLite's
    json_valid does not take them: a session kt-tui wrote so is no damaged one."""
    from kt_tui.store import Store

    store = Store(tmp_path / "s.db")
    sid = store.create_session(kernel_path="/k/a.cu", kernel_name="a")
    store.add_event(sid, "note", {"speedup": float("inf"), "time": float("nan"), "low": -float("inf")})
    store.open_gate(sid, "g1", "plan", "a plan", {"best_ms": float("nan")})
    assert Store(store.path).session(sid)["id"] == sid  # another process: checked from disk
