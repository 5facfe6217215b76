"""On a GPU: a sweep's configurations run from the compile pool's binaries (gpu/compiles.py), loaded
in the device worker (gpu/device/loaders.py), with the same verdicts as kernel_tuner's own compile."""

import pytest

from kt_tui.gpu.timeline import read
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..helpers import report, run_cli

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("backend", ["pycuda", "nvcuda", "cupy"])
def test_a_sweep_runs_from_the_pools_binaries(backend, capsys, hermetic, monkeypatch, tmp_path):
    trace = tmp_path / "trace.txt"
    monkeypatch.setenv("KT_TUI_TRACE", str(trace))
    code, out = run_cli(capsys, "run", EXAMPLES / "matmul.cu", "--auto", "--json", "--backend", backend)
    assert code == 0, out
    rows = Store(hermetic / "sessions.db").results(out["session"])
    assert rows and all(r.status == "ok" and r.verified is not False for r in rows)
    marks = read(str(trace))
    steps = [step for _, _, step in marks]
    assert "main: early compiles queued" in steps
    missed = [s for s in steps if "did not load" in s or ("not compiled ahead" in s and "cancelled" not in s)]
    assert not missed, missed
    begins = [(t, s) for t, _, s in marks if s.startswith("main: first begin")]
    assert begins and all(s.endswith("(compiled ahead)") for _, s in begins), begins
    start = marks[0][0]
    firsts = [t - start for t, _, s in marks if s.startswith("main: first result")]
    report(
        f"{backend}: matmul {len(rows)} results from the pool; first results at "
        + ", ".join(f"{t:.2f}s" for t in firsts)
    )
