"""init = "rounded" is the user's Python's values, rounded: export writes it as its recipe and runs
nothing, as it does init = "function" (issue 36, item 3)."""

import json
import sqlite3

import numpy as np

from kt_tui import cli

from .test_export_runs_no_user_code import EVIL, made  # noqa: F401 - the session fixture


def test_export_writes_a_rounded_input_as_its_recipe_and_runs_nothing(capsys, tmp_path, made):  # noqa: F811
    folder, src = made
    (folder / "evilmod.py").write_text(EVIL)
    db = tmp_path / "rounded.db"
    with sqlite3.connect(src) as a, sqlite3.connect(db) as b:
        a.backup(b)
    with sqlite3.connect(db) as c:
        for sid, vid, plain in c.execute("select session, id, spec_json from versions").fetchall():
            spec = json.loads(plain)
            spec["base_dir"] = str(folder)
            spec["args"][1] = {**spec["args"][1], "init": "rounded", "function": "evilmod:f"}
            c.execute("update versions set spec_json = ? where session = ? and id = ?", (json.dumps(spec), sid, vid))
    out = tmp_path / "out"
    assert cli.main(["export", "--db", str(db), "--out", str(out)]) == 0, capsys.readouterr().err
    err = capsys.readouterr().err
    assert not (folder / "PWNED").exists()
    assert 'not written: args[1] (a): init = "rounded", function = "evilmod:f"' in err
    with np.load(out / "vector_add.inputs.npz") as z:
        assert "arg1" not in z.files and "arg0" in z.files
    script = (out / "tune_vector_add.py").read_text()
    assert "NOT_IN_INPUTS = {1:" in script and "evilmod:f" in script
