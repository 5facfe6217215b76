"""The engine's tests run its logic with stand-in GPUs: on a machine with compute-sanitizer, a
generated kernel's memcheck (engine/checks.py) would start a real one and decide by the real GPU."""

import pytest


@pytest.fixture(autouse=True)
def _no_sanitizer(monkeypatch):
    monkeypatch.setattr("kt_tui.gpu.sanitize.find_sanitizer", lambda: None)
