import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
KERNELS = Path(__file__).resolve().parent / "kernels"


def _has_gpu() -> bool:
    if not shutil.which("nvidia-smi"):
        return False
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


HAS_GPU = _has_gpu()


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="no NVIDIA GPU found (nvidia-smi -L failed)")
    for item in items:
        if item.get_closest_marker("gpu") is not None:  # the marker, not the keyword: tests/gpu/ is a folder
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def no_animations(monkeypatch):
    """Apps under test do not animate. A gate that switches tabs animates the tab underline for 0.3 s;
    a key that quits the app meanwhile (q at a kernel gate) left Pilot.press waiting for that
    animation to end, for ever: the animator's timer was already stopped (Textual 8.2.8), and
    tests/ui/test_ui.py's Keys used to hide it by giving up on key presses after 5 s."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "TEXTUAL_ANIMATIONS", "none")


@pytest.fixture(autouse=True)
def hermetic(tmp_path, monkeypatch):
    """Every test gets its own config dir, data dir and database; no API keys leak in."""
    monkeypatch.setenv("KT_TUI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("KT_TUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("KT_TUI_DB", str(tmp_path / "sessions.db"))
    from kt_tui.kernel import inputs
    from kt_tui.ui import deciding  # a skip or stop goes at once; the undo's own tests set KT_TUI_UNDO_S

    monkeypatch.setattr(inputs, "_USER_CODE", [False])  # a worker run in-process by an earlier test allowed it

    monkeypatch.setattr(deciding, "UNDO_DEFAULT", 0.0)
    # a profile (ncu) and the device's peaks cost seconds on a GPU: the tests that want them say so
    monkeypatch.setenv("KT_TUI_NCU", "0")
    monkeypatch.setenv("KT_TUI_PEAKS", "0")
    for k in list(os.environ):
        if k.startswith("OPENAI_") or k in ("KT_TUI_BACKEND", "KT_TUI_SIM_CACHE", "KT_TUI_SIM_PACE", "RAY_ADDRESS"):
            monkeypatch.delenv(k, raising=False)
    return tmp_path


@pytest.fixture
def worker_loop_once(monkeypatch):
    """Runs the GPU worker's job loop in this process over these jobs, then leaves it."""
    import os

    from kt_tui.gpu.device import main as worker

    monkeypatch.setenv("KT_TUI_CUDA_WARM", "0")  # no CUDA driver started in the test process

    def run(*jobs):
        class Requests:
            items = list(jobs)

            def get(self, timeout):
                if self.items:
                    return self.items.pop(0)
                raise SystemExit

        with pytest.raises(SystemExit):
            worker.main(Requests(), None, None, os.getppid())

    return run
