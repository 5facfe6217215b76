"""A session database SQLite cannot open (its folder not writable, /proc here, where even root makes
no file) is the machine's problem: one line naming the file and saying why, exit status 3 (README,
"Commands"), for every command that would write it; nothing is made. Listing makes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kt_tui.cli import main

from ..conftest import EXAMPLES
from ..helpers import run_cli

DB = "/proc/kt-tui-no-such.db"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc here")
@pytest.mark.parametrize(
    "argv",
    [
        ["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "none"],
        ["resume"],
    ],
    ids=["run", "resume"],  # listing one that does not exist makes nothing (below)
)
def test_a_database_that_cannot_be_opened_exits_3_naming_it(capsys, argv):
    assert main([*argv, "--db", DB]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and DB in err[0] and "cannot be opened" in err[0]
    assert not Path(DB).exists()


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc here")
def test_its_json_says_error_and_names_no_session(capsys):
    argv = ["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--json", "--backend", "none", "--db", DB]
    assert main(argv) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["state"] == "error" and data["session"] is None and DB in data["error"]


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_database_path_that_is_no_file_is_bad_input_exit_2(capsys, tmp_path, kind):
    db = tmp_path / "sessions.db"
    db.mkdir() if kind == "folder" else os.mkfifo(db)
    for argv in (["sessions"], ["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "none"]):
        assert main([*argv, "--db", str(db)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and str(db) in err[0] and "not a file" in err[0]


def test_listing_a_database_that_does_not_exist_makes_nothing(capsys, tmp_path):
    db = tmp_path / "typo" / "sessions.db"
    assert main(["sessions", "--db", str(db)]) == 0
    assert "no sessions yet" in capsys.readouterr().out
    assert main(["sessions", "--json", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert not (tmp_path / "typo").exists()  # a mistyped --db leaves no folder or database behind


@pytest.mark.parametrize(
    "argv",
    [["sessions"], ["resume"], ["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "none"]],
    ids=["sessions", "resume", "run"],
)
def test_a_database_under_a_file_is_bad_input_naming_that_file(capsys, tmp_path, argv):
    (tmp_path / "notes.txt").write_text("a file, not a folder\n")
    db = tmp_path / "notes.txt" / "sessions.db"
    assert main([*argv, "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(db) in err[0], err
    assert f"{tmp_path / 'notes.txt'} is a file, not a folder" in err[0] and "Errno" not in err[0], err


def test_an_export_folder_under_a_file_names_that_file(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("a file, not a folder\n")
    code, done = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0 and isinstance(done, dict)
    sid = done["session"]
    out = tmp_path / "notes.txt" / "export"
    assert main(["export", sid, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(out) in err[0] and f"{tmp_path / 'notes.txt'} is a file, not a folder" in err[0], err
