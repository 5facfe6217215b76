"""The compile check runs while the backend is picked (issue 14: the sim session's fixed cost)."""

import threading

from kt_tui.engine import precheck
from kt_tui.engine.backend import BackendChoice
from kt_tui.gpu.compile import DEFAULT_ARCH
from kt_tui.kernel.spec import load_spec

from ..conftest import EXAMPLES


def test_the_compile_check_overlaps_picking_the_backend(monkeypatch):
    compiling = threading.Event()
    archs = []

    def errors(source, spec, path, arch):
        archs.append(arch)
        compiling.set()
        return None

    monkeypatch.setattr(precheck, "compile_errors", errors)

    def pick():  # the probe: the compile has started before it returns
        assert compiling.wait(30)
        return BackendChoice("sim", "")

    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    choice = precheck.checked_backend(pick, "source", spec, "vector_add.cu")
    assert choice.backend == "sim" and archs == [DEFAULT_ARCH]
    archs.clear()
    other = "sm_70" if DEFAULT_ARCH != "sm_70" else "sm_80"  # a GPU of another arch: checked again for it
    choice = precheck.checked_backend(lambda: BackendChoice("cupy", "GPU", arch=other), "source", spec, "v.cu")
    assert archs == [DEFAULT_ARCH, other]
