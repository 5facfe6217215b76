"""Shared test helpers: run the real CLI in-process and read its JSON."""

from __future__ import annotations

import json
import os

from kt_tui.cli import main


def run_cli(capsys, *argv: str) -> tuple[int, dict | list | None]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr().out
    start = out.find("{") if argv[0] != "sessions" else out.find("[")
    return code, (json.loads(out[start:]) if start >= 0 else None)


def report(line: str) -> None:
    """GPU tests append what they measured here, for the closing note."""
    path = os.environ.get("KT_TUI_GPU_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(line.rstrip() + "\n")
