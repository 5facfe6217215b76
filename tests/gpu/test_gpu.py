"""Real GPU runs: every backend, a hanging kernel, a crashing kernel. Skipped without a GPU."""

import asyncio
import time

import pytest

from kt_tui.store import Store

from ..conftest import EXAMPLES, KERNELS
from ..helpers import report, run_cli

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("backend", ["pycuda", "nvcuda", "cupy"])
def test_vector_add_sweep_on_each_backend(backend, capsys, hermetic):
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", backend)
    assert code == 0, out
    assert out["backend"] == backend and not out["simulated"]
    assert out["results"] == 6
    rows = Store(hermetic / "sessions.db").results(out["session"])
    assert all(r.status == "ok" for r in rows)
    assert all(r.verified for r in rows if r.key != "256")  # 256 is the reference itself
    report(
        f"{backend}: {out['gpu']} vector_add baseline {out['baseline_ms']:.4f} ms, best {out['best']['time_ms']:.4f} ms "
        f"{out['best']['params']} ({out['speedup']:.2f}x)"
    )


def test_hanging_config_is_killed_and_the_sweep_goes_on(capsys, hermetic):
    t0 = time.monotonic()
    code, out = run_cli(capsys, "run", KERNELS / "hang.cu", "--auto", "--json", "--backend", "pycuda")
    elapsed = time.monotonic() - t0
    rows = {r.key: r for r in Store(hermetic / "sessions.db").results(out["session"])}
    assert rows["64"].status == "timeout"
    assert all(rows[k].status == "ok" for k in ("32", "128", "256"))
    assert code == 0
    report(f"hang.cu: block 64 -> {rows['64'].status}; whole sweep {elapsed:.1f} s with timeout 8 s")


def test_crashing_config_restarts_the_worker(capsys, hermetic):
    code, out = run_cli(capsys, "run", KERNELS / "crash.cu", "--auto", "--json", "--backend", "pycuda")
    rows = {r.key: r for r in Store(hermetic / "sessions.db").results(out["session"])}
    assert rows["128"].status in ("runtime_error", "crash")
    assert rows["64"].status == "wrong_result" and "out[1000]" in rows["64"].first_bad
    assert rows["32"].status == "ok" and rows["32"].verified
    assert code == 0
    report(
        f"crash.cu: 128 -> {rows['128'].status} ({(rows['128'].error or '')[:80]}); 64 -> wrong_result "
        f"at {rows['64'].first_bad}; 32 -> ok"
    )


async def test_the_ui_streams_a_real_sweep(hermetic):
    from kt_tui.config import load_settings
    from kt_tui.front.commands import tui_app
    from kt_tui.front.session import read_kernel_file
    from kt_tui.ui.widgets import ResultsTable

    settings = load_settings({"backend": "pycuda"})
    app = tui_app(settings, Store(settings.db), kernel_file=read_kernel_file(EXAMPLES / "matmul.cu"))
    async with app.run_test(size=(150, 45)) as pilot:
        screen = app.screen
        for _ in range(1200):
            if (screen.bridge.waiting and screen.gate is not None) or screen.state == "error":
                break
            await asyncio.sleep(0.05)
        assert screen.choice.backend == "pycuda" and not screen.choice.simulated
        await pilot.press("s")
        for _ in range(2400):
            if screen.state in ("finished", "failed"):
                break
            await asyncio.sleep(0.05)
        table = screen.query_one(ResultsTable)
        assert screen.state == "finished" and table.row_count == 17
        report(f"UI on pycuda: matmul {table.row_count} rows, best {table.best_key}")
        await pilot.press("q")
