"""The machine, not the input (issue 22, items 10 and 12): a full disk, a database another program
holds locked, a results table without its primary key. One line naming the database, a stated exit
status (3 for the environment, 2 for a damaged file) with a --json object, nothing lost, no
claim of a saved session where none was made."""

import sqlite3
from contextlib import closing

import pytest

from kt_tui.cli import main
from kt_tui.store import Store
from kt_tui.store import db as dbm

from ..conftest import EXAMPLES
from ..helpers import run_cli


@pytest.fixture
def full_after_migration(monkeypatch):
    """Every connection of a Store made from now on may not grow the file past its size once
    opened (PRAGMA max_page_count: a full disk, unprivileged)."""
    plain_conn, plain_init = dbm.Database.conn.fget, dbm.Database.__init__

    def conn(self):
        c = plain_conn(self)
        if getattr(self, "_full", 0) and not getattr(self._local, "limited", False):
            c.execute(f"PRAGMA max_page_count = {self._full}")
            self._local.limited = True
        return c

    def init(self, *a, **k):
        plain_init(self, *a, **k)
        self._full = plain_conn(self).execute("PRAGMA page_count").fetchone()[0]

    monkeypatch.setattr(dbm.Database, "conn", property(conn))
    monkeypatch.setattr(dbm.Database, "__init__", init)


def test_a_full_disk_mid_session_is_exit_3_with_a_json_error_and_nothing_lost(capsys, hermetic, full_after_migration):
    code = main(["run", str(EXAMPLES / "matmul.cu"), "--auto", "--json", "--backend", "sim"])
    out, err = capsys.readouterr()
    assert code == 3
    import json

    data = json.loads(out[out.index("{") :])
    sid = data["session"]
    assert data["state"] == "error" and "the disk is full" in data["error"] and sid
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"kt-tui: cannot use the session database {hermetic / 'sessions.db'}: the disk is full")
    assert f"kt-tui resume {sid}" in last and "internal error" not in err and "Traceback" not in err
    store = Store(hermetic / "sessions.db")
    assert store.session(sid) and store.count_results(sid) > 0  # what was stored before is there


def test_a_database_another_program_holds_locked_is_exit_3_and_no_session_claimed(capsys, hermetic, monkeypatch):
    db = hermetic / "sessions.db"
    Store(db)
    plain_conn = dbm.Database.conn.fget

    def quick(self):  # the 10 s busy timeout, shortened
        c = plain_conn(self)
        c.execute("PRAGMA busy_timeout = 50")
        return c

    monkeypatch.setattr(dbm.Database, "conn", property(quick))
    monkeypatch.setattr(dbm, "SESSIONS_HERE", [])
    with closing(sqlite3.connect(db)) as other:
        other.execute("BEGIN EXCLUSIVE")
        code, data = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
        other.rollback()
    assert code == 3 and data["session"] is None
    assert data["error"] == f"cannot use the session database {db}: another program holds it locked"


def test_a_results_table_without_its_primary_key_is_refused_with_no_new_rows(capsys, hermetic):
    db = hermetic / "sessions.db"
    code, _ = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("ALTER TABLE results RENAME TO old_results")
        conn.execute("CREATE TABLE results AS SELECT * FROM old_results")  # no primary key
        conn.execute("DROP TABLE old_results")
    with closing(sqlite3.connect(db)) as conn:
        before = len(conn.execute("SELECT id FROM sessions").fetchall())
    for _ in range(2):
        code, data = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
        assert code == 2
        assert data["error"] == (
            f"{db}: table results lacks its primary key (session, version, key): a damaged or "
            "foreign file, not opened (pass another --db)"
        )
    with closing(sqlite3.connect(db)) as conn:
        assert len(conn.execute("SELECT id FROM sessions").fetchall()) == before
