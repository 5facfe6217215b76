"""Every text an LLM or a database supplies reaches every export format without escape sequences or
control characters (issue 36, item 5): an explanation that sets the terminal's title, clears the
screen and writes the clipboard (OSC 52) is written as plain text in report.md, report.html, the
plot, the .cu header and results.csv; the JSON files stay escaped JSON."""

import json
import sqlite3

from kt_tui import cli

from .test_export_runs_no_user_code import made  # noqa: F401  (a fixture)

EVIL = "\x1b]0;owned\x07\x1b[2J\x1b]52;c;ZWNobyBvd25lZA==\x07\x9b31m\x9d8;;http://x\x9c\x07\x85bell"
BYTES = [b"\x1b", b"\x07", "\x9b".encode(), "\x9d".encode(), "\x9c".encode(), "\x85".encode()]


def test_escapes_from_a_database_are_stripped_in_every_export_format(tmp_path, made, capsys):  # noqa: F811
    db = tmp_path / "evil.db"
    with sqlite3.connect(made[1]) as a, sqlite3.connect(db) as b:
        a.backup(b)
    with sqlite3.connect(db) as c:
        c.execute("update sessions set gpu = gpu || ?, note = ?", (EVIL, EVIL))
        c.execute("update gates set title = title || ?", (EVIL,))
        c.execute("update results set error = ?", (EVIL,))
        body = json.loads(c.execute("select body from gates limit 1").fetchone()[0])
        c.execute("update gates set body = ?", (json.dumps({**body, "explanation": EVIL}),))
    out = tmp_path / "out"
    assert cli.main(["export", "--db", str(db), "--out", str(out)]) == 0
    capsys.readouterr()
    for name in ("report.md", "report.html", "report-times.svg", "vector_add.best.cu", "results.csv"):
        data = (out / name).read_bytes()
        assert not [b for b in BYTES if b in data], name
    assert "bell" in (out / "report.md").read_text()  # the text stays, the sequences go
    for name in ("vector_add.best.json",):
        data = (out / name).read_bytes()
        assert b"\x1b" not in data and json.loads(data)["gpu"].endswith(EVIL)  # escaped, exact
