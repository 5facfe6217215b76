"""A session database this user may read but not write (issue 36, item 6): a file of mode 0444, or one
in a folder of mode 0555. Listing (`kt-tui sessions`, `--json`, the browser) and export work and make
nothing beside the file; resume, run and delete say in one line that it is read-only and what to do,
with exit status 3. The commands run in a child process as another user when the tests run as root,
whom file modes do not bind."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path

import pytest

from kt_tui.errors import EnvironmentProblem
from kt_tui.store import Store
from kt_tui.store import db as dbm

from ..conftest import EXAMPLES, ROOT

NOBODY = 65534
READ_ONLY = "is read-only here"


def _as_reader(argv: list[str]) -> list[str]:
    """The command, run as a user the file modes bind (setpriv: Python's own user= drops the rights
    to reach this venv's interpreter before it is executed)."""
    if os.geteuid() != 0:
        return argv
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: no user here whom file modes bind")
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]


def _cli(folder: Path, *argv, reader: bool = True) -> subprocess.CompletedProcess:
    home = folder.parent / "home"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT),
        "HOME": str(home),
        "KT_TUI_CONFIG_DIR": str(home / "config"),
        "KT_TUI_DATA_DIR": str(home / "data"),
    }
    command = [sys.executable, "-m", "kt_tui", *map(str, argv)]
    return subprocess.run(
        _as_reader(command) if reader else command,
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def finished_db():
    """A finished sim session's database, made by a process that has ended (no -wal file left)."""
    top = Path(tempfile.mkdtemp(prefix="kt-ro-base-"))
    (top / "home").mkdir()
    db = top / "base.db"
    done = _cli(
        top / "x",
        *("run", EXAMPLES / "vector_add.cu", "--auto", "--backend", "sim", "--llm", "none"),
        *("--sim-cache", EXAMPLES / "recorded", "--db", db),
        reader=False,
    )
    assert done.returncode == 0, done.stderr
    yield db
    shutil.rmtree(top)


@pytest.fixture(params=["file 0444", "folder 0555"])
def read_only_db(request, finished_db):
    """The database, read-only to the child's user: the file itself, or the folder it is in."""
    top = Path(tempfile.mkdtemp(prefix="kt-ro-"))
    top.chmod(0o755)
    home, folder = top / "home", top / "db"
    home.mkdir(mode=0o777)
    home.chmod(0o777)
    folder.mkdir()
    db = folder / "s.db"
    shutil.copy(finished_db, db)
    if request.param == "file 0444":
        db.chmod(0o444)
        folder.chmod(0o777)  # the folder may be written: SQLite must still make nothing in it
    else:
        db.chmod(0o644)
        folder.chmod(0o555)
    yield db
    folder.chmod(0o755)
    shutil.rmtree(top)


def _beside(db: Path) -> list[str]:
    return sorted(p.name for p in db.parent.iterdir())


def test_a_read_only_database_is_listed_and_exported_and_nothing_is_made_beside_it(read_only_db):
    with closing(sqlite3.connect(f"file:{read_only_db}?mode=ro&immutable=1", uri=True)) as conn:
        sid = conn.execute("SELECT id FROM sessions").fetchone()[0]
    before = _beside(read_only_db)
    listed = _cli(read_only_db.parent, "sessions", "--db", read_only_db)
    assert listed.returncode == 0, listed.stderr
    assert sid in listed.stdout and "finished" in listed.stdout
    as_json = _cli(read_only_db.parent, "sessions", "--json", "--db", read_only_db)
    assert as_json.returncode == 0 and [r["id"] for r in json.loads(as_json.stdout)] == [sid]
    out = read_only_db.parent.parent / "home" / "out"
    exported = _cli(read_only_db.parent, "export", "--db", read_only_db, "--out", out)
    assert exported.returncode == 0, exported.stderr
    assert (out / "report.md").is_file()
    assert _beside(read_only_db) == before  # no -wal, -shm, -journal or lock folder


@pytest.mark.parametrize("command", ["resume --auto", "resume", "run"])
def test_what_would_write_a_read_only_database_says_so_in_one_line_with_exit_3(read_only_db, command):
    before = _beside(read_only_db)
    argv = command.split() if command != "run" else ["run", EXAMPLES / "vector_add.cu", "--auto", "--json"]
    done = _cli(read_only_db.parent, *argv, "--db", read_only_db, "--backend", "sim", "--llm", "none")
    said = [line for line in done.stderr.splitlines() if line.startswith("kt-tui:")]
    assert done.returncode == 3, done.stderr
    assert len(said) == 1 and READ_ONLY in said[0] and "copy it to a folder you can write" in said[0]
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    if command == "run":
        assert json.loads(done.stdout[done.stdout.index("{") :])["session"] is None
    assert _beside(read_only_db) == before
    with closing(sqlite3.connect(f"file:{read_only_db}?mode=ro&immutable=1", uri=True)) as conn:
        assert conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="the writer and the reader must be two users")
def test_a_database_a_writer_has_open_is_read_with_its_log(read_only_db):
    """With a -wal file beside it (its writer still at work), the file is read with SQLite's mode=ro,
    which reads the log too: the row changed last is listed as it is now."""
    read_only_db.chmod(0o644)
    read_only_db.parent.chmod(0o755)  # the owner writes, the reader may not
    with closing(sqlite3.connect(read_only_db)) as writer:
        writer.execute("PRAGMA journal_mode = wal")
        with writer:
            writer.execute("UPDATE sessions SET state = 'written-last'")
        assert (read_only_db.parent / "s.db-wal").stat().st_size > 0
        done = _cli(read_only_db.parent, "sessions", "--json", "--db", read_only_db)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["state"] == "written-last"


async def test_the_browser_lists_a_read_only_database_and_refuses_to_delete_or_open(read_only_db, monkeypatch):
    from kt_tui.config import load_settings
    from kt_tui.front.commands import tui_app

    _as_the_reader(monkeypatch)
    before = _beside(read_only_db)
    store = Store(read_only_db)
    assert store.read_only
    notes: list[str] = []
    app = tui_app(load_settings({"db": str(read_only_db)}), store, browse=True)
    monkeypatch.setattr(app, "notify", lambda text, **kw: notes.append(text))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#sessions")
        assert table.row_count == 1
        await pilot.press("d")
        await pilot.pause()
        assert notes and READ_ONLY in notes[-1]
        await pilot.press("enter")
        await pilot.pause()
        assert len(notes) == 2 and READ_ONLY in notes[-1]
        assert type(app.screen).__name__ == "SessionsScreen" and table.row_count == 1
        await pilot.press("q")
    assert _beside(read_only_db) == before and len(Store(read_only_db).sessions()) == 1


def test_an_older_read_only_database_says_it_must_be_brought_up_to_date(read_only_db, monkeypatch):
    old = read_only_db.with_name("old.db")
    read_only_db.parent.chmod(0o755)
    shutil.copy(read_only_db, old)
    with closing(sqlite3.connect(old)) as conn:
        conn.execute("PRAGMA user_version = 2")
        conn.execute("DROP INDEX results_by_time")
    old.chmod(0o444)
    _as_the_reader(monkeypatch)
    with pytest.raises(EnvironmentProblem, match=r"is read-only here: was made by an older kt-tui \(schema 2\)"):
        Store(old)


def _as_the_reader(monkeypatch) -> None:
    """Root writes any file: this process is given the view of the user the file modes bind."""
    if os.geteuid() == 0:
        monkeypatch.setattr(dbm, "_read_only", lambda path: True, raising=False)
