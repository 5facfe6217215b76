"""A spec read back from a session database is checked like one the user wrote (issue 22, item 7):
a hand-edited DB's expression is refused, naming the field, by export (no script written), resume (before
anything is counted or run) and every other reader of stored specs."""

import json
import shutil
import sqlite3

import pytest

from kt_tui import cli
from kt_tui.kernel.spec import SpecError, spec_from_plain

from ..conftest import EXAMPLES

EVIL = "__import__('os').system('touch PWNED') == 0 or True"
FIELDS = {
    "restrictions": ("restrictions", [EVIL], "restrictions[0]"),
    "grid_div_x": ("grid_div_x", [EVIL], "grid_div_x[0]"),
    "problem_size": ("problem_size", [EVIL], "problem_size[0]"),
    "defines": ("defines", {"TILE": EVIL}, "defines.TILE"),
    "smem_size": ("smem_size", EVIL, "smem_size"),
    "block_size_names": ("block_size_names", ["x); import os #"], "block_size_names[0]"),
}


@pytest.fixture(scope="module")
def session_db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stored")
    kernel = folder / "vector_add.cu"
    shutil.copy(EXAMPLES / "vector_add.cu", kernel)
    db = folder / "s.db"
    code = cli.main(
        [
            "run",
            str(kernel),
            "--spec",
            str(EXAMPLES / "vector_add.cu.toml"),
            "--auto",
            "--backend",
            "sim",
            "--sim-cache",
            str(EXAMPLES / "recorded"),
            "--llm",
            "none",
            "--db",
            str(db),
        ]
    )
    assert code == 0
    return db


def _tampered(session_db, tmp_path, key, value) -> str:
    db = tmp_path / "tampered.db"
    with sqlite3.connect(session_db) as src, sqlite3.connect(db) as out:
        src.backup(out)
    with sqlite3.connect(db) as c:
        for sid, vid, plain in c.execute("select session, id, spec_json from versions").fetchall():
            spec = {**json.loads(plain), key: value}
            c.execute("update versions set spec_json = ? where session = ? and id = ?", (json.dumps(spec), sid, vid))
    return str(db)


def _counts(db: str) -> tuple:
    with sqlite3.connect(db) as c:
        return tuple(c.execute(f"select count(*) from {t}").fetchone()[0] for t in ("events", "results", "gates"))


def _one_line_2(capsys, argv, name):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    assert name in err and "stored spec" in err, err


@pytest.mark.parametrize("field", list(FIELDS))
def test_export_of_a_tampered_db_is_refused_and_writes_nothing(capsys, tmp_path, session_db, field, monkeypatch):
    key, value, name = FIELDS[field]
    db = _tampered(session_db, tmp_path, key, value)
    monkeypatch.chdir(tmp_path)
    _one_line_2(capsys, ["export", "--db", db, "--out", str(tmp_path / "out")], name)
    assert not (tmp_path / "out").exists() and not (tmp_path / "PWNED").exists()


def test_resume_of_a_tampered_db_is_refused_before_anything_is_counted(capsys, tmp_path, session_db, monkeypatch):
    db = _tampered(session_db, tmp_path, "restrictions", [EVIL])
    before = _counts(db)
    monkeypatch.chdir(tmp_path)
    _one_line_2(
        capsys,
        [
            "resume",
            "--db",
            db,
            "--auto",
            "--backend",
            "sim",
            "--sim-cache",
            str(EXAMPLES / "recorded"),
            "--llm",
            "none",
        ],
        "restrictions[0]",
    )
    assert _counts(db) == before and not (tmp_path / "PWNED").exists()


def test_the_worker_reads_stored_specs_through_the_same_check(session_db):
    with sqlite3.connect(session_db) as c:
        plain = json.loads(c.execute("select spec_json from versions").fetchone()[0])
    spec_from_plain(plain)  # the untouched one passes
    with pytest.raises(SpecError, match=r"grid_div_y\[0\]"):
        spec_from_plain({**plain, "grid_div_y": ["(lambda: 1)()"]})
    with pytest.raises(SpecError, match=r"restrictions\[0\].*unknown name 'os'"):
        spec_from_plain({**plain, "restrictions": ["os == 1"]})


def _raw(session_db, tmp_path, spec_json=None, source=None) -> str:
    db = tmp_path / "damaged.db"
    with sqlite3.connect(session_db) as src, sqlite3.connect(db) as out:
        src.backup(out)
    with sqlite3.connect(db) as c:
        if spec_json is not None:
            c.execute("update versions set spec_json = ?", (spec_json,))
        if source is not None:
            c.execute("update versions set source = ?", (source,))
    return str(db)


@pytest.mark.parametrize("damage", ["{oops", "[" * 50_000 + "]" * 50_000, "[1, 2]", '{"kernel": "vector_add"}'])
def test_a_damaged_stored_spec_is_a_one_line_exit_2(capsys, tmp_path, session_db, damage):
    db = _raw(session_db, tmp_path, spec_json=damage)
    _one_line_2(capsys, ["export", "--db", db, "--out", str(tmp_path / "out")], "")
    _one_line_2(
        capsys,
        [
            "resume",
            "--db",
            db,
            "--auto",
            "--backend",
            "sim",
            "--sim-cache",
            str(EXAMPLES / "recorded"),
            "--llm",
            "none",
        ],
        "",
    )


def test_a_stored_kernel_with_a_nul_is_refused_by_export(capsys, tmp_path, session_db):
    db = _raw(session_db, tmp_path, source='\0#include "/dev/zero"\n' + (EXAMPLES / "vector_add.cu").read_text())
    assert cli.main(["export", "--db", db, "--out", str(tmp_path / "out")]) == 2
    assert "the stored kernel: line 1: a NUL byte" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
