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
