"""A mistyped flag or value is one line naming it (and where the options are listed), exit 2: not
argparse's whole usage block before the problem."""

from __future__ import annotations

import pytest

from kt_tui.cli import main

from ..conftest import EXAMPLES


@pytest.mark.parametrize(
    "argv, says",
    [
        (["run", str(EXAMPLES / "vector_add.cu"), "--auto", "--backend", "nope"], "--backend: invalid choice: 'nope'"),
        (["run", str(EXAMPLES / "vector_add.cu")], "the following arguments are required: --auto"),
        (["export", "--out", "x", "--bogus"], "unrecognized arguments: --bogus"),
        (["nosuchcommand.py", "--bogus"], "unrecognized arguments: --bogus"),
    ],
    ids=["bad choice", "missing flag", "unknown flag", "unknown flag after a path"],
)
def test_a_usage_error_is_one_line_and_exit_2(capsys, argv, says):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and "--help" in err
    assert not err.startswith("usage:")


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--db", "s.db", "sessions"], "kt-tui sessions --db s.db"),
        (["--db", "s.db", "export", "abc", "--out", "d"], "kt-tui export --db s.db abc --out d"),
    ],
    ids=["sessions", "export"],
)
def test_options_before_the_command_say_the_order_in_one_line(capsys, argv, says):
    """Before, `kt-tui --db s.db sessions` said "kernel sessions: no such file"."""
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the command comes first" in err and says in err, err


def test_options_before_a_kernel_still_open_it(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "run").write_text("not a kernel\n")  # a file named like a command is a file
    with pytest.raises(SystemExit) as e:
        main(["--backend", "sim", "run", "--help"])
    assert e.value.code == 0 and "usage: kt-tui open" in capsys.readouterr().out
