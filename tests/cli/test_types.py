"""The upper floors (ui, llm, front, export, importer, search and the top-level modules) type-check
under mypy with pyproject.toml's flags; the lower floors have tests of their own (store, gpu)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ui", "llm", "front", "export", "importer", "search")
MODULES = ("cli", "config", "tomlfile", "files", "redact", "theme_files", "paths")


def test_the_upper_floors_are_clean_under_mypy():
    targets = [arg for p in PACKAGES for arg in ("-p", f"kt_tui.{p}")]
    targets += [arg for m in MODULES for arg in ("-m", f"kt_tui.{m}")]
    out = subprocess.run(
        [sys.executable, "-m", "mypy", *targets, "--follow-imports=silent"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert out.returncode in (0, 1) and "source files" in out.stdout, out.stdout + out.stderr
    errors = re.findall(r"^(kt_tui/\S+?):\d+: error: .*$", out.stdout, re.M)
    assert errors == [], out.stdout[-4000:]
