"""kt_tui.kernel (strict flags) and kt_tui.gpu (the app's side and the worker's) type-check under mypy with
pyproject.toml's flags. Here, not in tests/gpu: everything under tests/gpu carries the "gpu" keyword, which
tests/conftest.py skips on a machine without a GPU."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("package", ["kt_tui.kernel", "kt_tui.gpu"])
def test_the_package_is_clean_under_mypy(package):
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "-p", package, "--follow-imports=silent"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert out.returncode in (0, 1) and "source files" in out.stdout, out.stdout + out.stderr
    errors = re.findall(r"^kt_tui/\S+?:\d+: error: .*$", out.stdout, re.M)
    assert errors == [], "\n".join(errors)
