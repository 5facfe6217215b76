"""A session database path with a control character is refused by the listing as by every other
command (one line naming where it came from, exit 2), not listed as an empty database."""

from __future__ import annotations

import pytest

from kt_tui.cli import main


@pytest.mark.parametrize("how", ["flag", "env", "config"])
def test_the_listing_refuses_a_database_path_with_a_control_character(capsys, tmp_path, monkeypatch, how):
    db = str(tmp_path / "a\x1b[31mb.db")
    monkeypatch.delenv("KT_TUI_DB", raising=False)
    monkeypatch.setenv("KT_TUI_CONFIG_DIR", str(tmp_path / "cfg"))
    argv = ["sessions"]
    if how == "flag":
        argv += ["--db", db]
    elif how == "env":
        monkeypatch.setenv("KT_TUI_DB", db)
    else:
        (tmp_path / "cfg").mkdir()
        (tmp_path / "cfg" / "config.toml").write_text('db = "' + db.replace("\x1b", "\\u001b") + '"\n')
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    where = {"flag": "--db", "env": "KT_TUI_DB", "config": "config.toml: db"}[how]
    assert len(err) == 1 and where in err[0] and "control characters" in err[0], err
    assert not list(tmp_path.glob("a*b.db"))
