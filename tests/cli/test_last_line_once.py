"""A session left unmeasured (no GPU) says how to go on once, as its last line: before, the line came
twice in a terminal (the engine's note on stderr, then the summary's last line on stdout)."""

from __future__ import annotations

from kt_tui.cli import main

from ..conftest import EXAMPLES


def test_the_unmeasured_last_line_is_said_once(capsys):
    assert main(["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "none"]) == 0
    out, err = capsys.readouterr()
    said = [line for line in (err + out).splitlines() if "is unmeasured (no GPU here)" in line]
    assert len(said) == 1 and out.strip().splitlines()[-1] == said[0]


def test_with_json_the_line_stays_on_stderr(capsys):
    assert main(["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--json", "--backend", "none"]) == 0
    out, err = capsys.readouterr()
    assert "is unmeasured (no GPU here)" in err and out.lstrip().startswith("{")
