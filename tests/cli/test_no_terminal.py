"""The terminal UI without a terminal (`kt-tui resume` or `kt-tui KERNEL.cu` in a script, a pipe, CI)
is refused in one line saying what runs without one, exit 2: before, the app wrote its escape
sequences into the pipe and waited for keys that never came."""

from __future__ import annotations

import pytest

from kt_tui.cli import main
from kt_tui.ui.app import KtApp

from ..conftest import EXAMPLES
from ..helpers import run_cli


@pytest.fixture
def no_app(monkeypatch):
    monkeypatch.setattr(KtApp, "run", lambda self, **k: pytest.fail("the app started without a terminal"))


def test_resume_without_a_terminal_says_to_add_auto(capsys, no_app):
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json")
    assert code == 0 and isinstance(out, dict)
    assert main(["resume", out["session"]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs a terminal" in err and "resume" in err and "--auto" in err


def test_a_kernel_without_a_terminal_says_to_use_run_auto(capsys, no_app):
    assert main([str(EXAMPLES / "vector_add.cu")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs a terminal" in err and "kt-tui run" in err
