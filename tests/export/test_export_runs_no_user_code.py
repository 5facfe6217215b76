"""Export and the UI never import the user's Python (issue 36, item 3): a session database whose stored
spec makes an input with `function = "evilmod:f"` is exported without running evilmod.py (the input is
exported as its recipe and named as not written), from the CLI and the export screen; a stored
`base_dir` outside the session's kernel folder is refused on read with the field named; a best result
naming no version is one line and exit 2; a failed export leaves nothing behind; two exports into
one folder never mix their files."""

import json
import shutil
import sqlite3
import threading

import pytest

from kt_tui import cli
from kt_tui.export import export_session
from kt_tui.kernel import inputs
from kt_tui.kernel.spec import SpecError, spec_from_plain
from kt_tui.store import Store

from ..conftest import EXAMPLES

EVIL = (
    "from pathlib import Path\nPath(__file__).with_name('PWNED').write_text('ran')\ndef f(sizes):\n    return [1.0]\n"
)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A finished sim session of vector_add whose kernel lives in its own folder, beside evilmod.py."""
    folder = tmp_path_factory.mktemp("kernel")
    shutil.copy(EXAMPLES / "vector_add.cu", folder / "vector_add.cu")
    shutil.copy(EXAMPLES / "vector_add.cu.toml", folder / "vector_add.cu.toml")
    db = folder / "s.db"
    argv = ["run", str(folder / "vector_add.cu"), "--auto", "--backend", "sim"]
    argv += ["--sim-cache", str(EXAMPLES / "recorded"), "--llm", "none", "--db", str(db)]
    assert cli.main(argv) == 0
    return folder, db


def _tampered(made, tmp_path, base_dir=None, function="evilmod:f", results_version=None, **session) -> tuple[str, str]:
    folder, src = made
    (folder / "evilmod.py").write_text(EVIL)
    db = tmp_path / "tampered.db"
    with sqlite3.connect(src) as a, sqlite3.connect(db) as b:
        a.backup(b)
    with sqlite3.connect(db) as c:
        for sid, vid, plain in c.execute("select session, id, spec_json from versions").fetchall():
            spec = json.loads(plain)
            spec["base_dir"] = str(base_dir or folder)
            spec["args"][1] = {**spec["args"][1], "init": "function", "function": function}
            c.execute("update versions set spec_json = ? where session = ? and id = ?", (json.dumps(spec), sid, vid))
        for k, v in session.items():
            c.execute(f"update sessions set {k} = ?", (v,))
        if results_version:
            c.execute("update results set version = ?", (results_version,))
        sid = c.execute("select id from sessions").fetchone()[0]
    return str(db), sid


def _one_line_2(capsys, argv, *says):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and "internal error" not in err, err
    for s in says:
        assert s in err.splitlines()[-1], err


@pytest.mark.parametrize("function", ["evilmod:f", "os:system"])
def test_export_writes_a_function_made_input_as_its_recipe_and_runs_nothing(capsys, tmp_path, made, function):
    db, sid = _tampered(made, tmp_path, function=function)
    out = tmp_path / "out"
    assert cli.main(["export", "--db", db, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert not (made[0] / "PWNED").exists()
    assert f'not written: args[1] (a): init = "function", function = "{function}"' in err
    with __import__("numpy").load(out / "vector_add.inputs.npz") as z:
        assert "arg1" not in z.files and "arg0" in z.files
    script = (out / "tune_vector_add.py").read_text()
    assert "NOT_IN_INPUTS = {1:" in script and function in script


async def test_the_export_screen_runs_no_user_code(tmp_path, made):
    from kt_tui.config import load_settings
    from kt_tui.ui.export_screen import ExportScreen
    from kt_tui.ui.sessions_screen import SessionsScreen

    from ..ui.test_snapshots import SnapApp
    from ..ui.test_ui import wait_for

    db, sid = _tampered(made, tmp_path)
    store = Store(db)
    dialog = ExportScreen(store, sid)

    def screens(app):
        app.call_after_refresh(app.push_screen, dialog)
        return SessionsScreen(store)

    app = SnapApp(load_settings({}), store, screens)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.screen is dialog and bool(dialog.query("#export-dir")))
        dialog.query_one("#export-dir").value = str(tmp_path / "out")
        await pilot.press("enter")
        await wait_for(pilot, lambda: dialog.written is not None, timeout=60)
        assert "Not written" in str(dialog.query_one("#export-result").render())
    assert not (made[0] / "PWNED").exists()


def test_a_stored_folder_outside_the_kernel_folder_is_refused_by_export_and_resume(capsys, tmp_path, made):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "evilmod.py").write_text(EVIL)
    db, sid = _tampered(made, tmp_path, base_dir=elsewhere)
    _one_line_2(
        capsys, ["export", "--db", db, "--out", str(tmp_path / "out")], "the stored spec: base_dir:", str(elsewhere)
    )
    assert not (tmp_path / "out").exists()
    argv = ["resume", sid, "--db", db, "--auto", "--backend", "sim", "--sim-cache", str(EXAMPLES / "recorded")]
    _one_line_2(capsys, [*argv, "--llm", "none"], "the stored spec: base_dir:")
    assert not (elsewhere / "PWNED").exists()


def test_a_best_result_naming_no_version_is_one_line_and_writes_nothing(capsys, tmp_path, made):
    db, _ = _tampered(made, tmp_path, results_version="nosuchversion", best_version="nosuchversion")
    # a result of no version is no accepted version's (engine/summary.py fastest_trusted): no best
    _one_line_2(capsys, ["export", "--db", db, "--out", str(tmp_path / "out")], "no accepted best kernel")
    assert not (tmp_path / "out").exists()


def test_a_failed_export_leaves_the_folder_as_it_was(tmp_path, made, monkeypatch):
    from kt_tui.export import export as export_mod

    db, sid = _tampered(made, tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("kept")

    def broken(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(export_mod, "write_report", broken)
    with pytest.raises(export_mod.ExportError, match="nothing was exported"):
        export_session(Store(db), sid, out)
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]


def test_two_exports_into_one_folder_never_mix_their_files(tmp_path, made):
    one, sid1 = _tampered(made, tmp_path)
    (tmp_path / "b").mkdir()
    two, sid2 = _tampered(made, tmp_path / "b")
    with sqlite3.connect(two) as c:
        for table in ("sessions",):
            c.execute(f"update {table} set id = 'other01'")
        for table in ("versions", "results", "runs", "gates", "events", "checks"):
            c.execute(f"update {table} set session = 'other01'")
    out = tmp_path / "out"
    for _ in range(3):
        threads = [
            threading.Thread(target=export_session, args=(Store(db), sid, out), kwargs={"force": True})
            for db, sid in ((one, sid1), (two, "other01"))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        manifest = json.loads((out / ".kt-tui-export.json").read_text())
        best = json.loads((out / "vector_add.best.json").read_text())
        assert best["session"] == manifest["session"]
        assert f"session {manifest['session']}" in (out / "report.md").read_text()


def test_the_users_python_runs_only_where_allowed(tmp_path, made, monkeypatch):
    folder, _ = made
    (folder / "evilmod.py").write_text(EVIL)
    plain = {**json.loads(sqlite3.connect(made[1]).execute("select spec_json from versions").fetchone()[0])}
    plain["base_dir"] = str(folder)
    plain["args"][1] = {**plain["args"][1], "init": "function", "function": "evilmod:f"}
    spec = spec_from_plain(plain)
    with pytest.raises(SpecError, match="runs only in the GPU worker"):
        inputs.make_args(spec)
    assert not (folder / "PWNED").exists()
