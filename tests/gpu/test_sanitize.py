"""compute-sanitizer from the kernel gate, without a GPU: a missing tool, a missing GPU, and
reports read from a stand-in compute-sanitizer script on PATH."""

import os
import stat

import pytest

from kt_tui.gpu import compile as comp
from kt_tui.gpu import sanitize as san
from kt_tui.kernel.spec import load_spec

from ..conftest import ROOT

FAULTS = ROOT / "tests" / "faults"
SPEC = load_spec(FAULTS / "scaled_add.cu.toml")
SOURCE = (FAULTS / "oob_write.cu").read_text()

MEMCHECK = """========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at scaled_add(float *, const float *, const float *, float, int)+0x1b0 in kernel.cu:5
=========     by thread (36,0,0) in block (0,0,0)
=========     Address 0x7f0000000094 is out of bounds
=========
kt-tui: the kernel ran once at {'n': 37} with {'block_size_x': 256}
========= ERROR SUMMARY: 1 error
"""
RACECHECK = """========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at scaled_add(...)+0x90 in kernel.cu:6
=========     and Read access at scaled_add(...)+0xe0 in kernel.cu:10 [64 hazards]
=========
kt-tui: the kernel ran once at {'n': 37} with {'block_size_x': 64}
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
"""
CLEAN = "========= COMPUTE-SANITIZER\nkt-tui: the kernel ran once\n========= ERROR SUMMARY: 0 errors\n"
NO_DEVICE = (
    "========= COMPUTE-SANITIZER\nImportError: cuInit failed: no CUDA-capable device is detected\n"
    "========= Error: Target application returned an error\n========= ERROR SUMMARY: 0 errors\n"
)


def fake_sanitizer(folder, output: str, status: int = 0, sleep: float = 0):
    """A compute-sanitizer stand-in: prints `output` and records its arguments."""
    folder.mkdir(exist_ok=True)
    (folder / "out.txt").write_text(output)
    script = folder / "compute-sanitizer"
    script.write_text(f'#!/bin/sh\necho "$@" > {folder}/args.txt\nsleep {sleep}\ncat {folder}/out.txt\nexit {status}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder


@pytest.fixture
def path_with(monkeypatch):
    def use(folder):
        monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")

    return use


def test_missing_tool_says_where_it_comes_from(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(comp, "SEARCH_DIRS", ())
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "pycuda")
    assert report.ok is None and "compute-sanitizer not found" in report.reason and "CUDA toolkit" in report.reason


@pytest.mark.parametrize("backend", ["sim", "none"])
def test_no_gpu_in_the_session(backend, tmp_path, path_with):
    path_with(fake_sanitizer(tmp_path / "bin", CLEAN))
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, backend)
    assert report.ok is None and "no GPU" in report.reason and not (tmp_path / "bin" / "args.txt").exists()


def test_memcheck_report_is_read(tmp_path, path_with):
    path_with(fake_sanitizer(tmp_path / "bin", MEMCHECK, status=0))
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "pycuda")
    assert (report.ok, report.errors) == (False, 1)
    assert "Invalid __global__ write of size 4 bytes" in report.text and "kernel.cu:5" in report.text
    assert report.sizes == {"n": 37}  # the smallest check size
    args = (tmp_path / "bin" / "args.txt").read_text().split()
    assert args[:2] == ["--tool", "memcheck"] and args[-3:-1] == ["-m", "kt_tui.gpu.sanitize"]


def test_racecheck_report_is_read(tmp_path, path_with):
    path_with(fake_sanitizer(tmp_path / "bin", RACECHECK))
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 64}, "nvcuda", tool="racecheck")
    assert (report.ok, report.errors, report.tool) == (False, 1, "racecheck")
    assert "Race reported between Write access" in report.text


def test_clean_run(tmp_path, path_with):
    path_with(fake_sanitizer(tmp_path / "bin", CLEAN))
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "pycuda")
    assert (report.ok, report.errors) == (True, 0)


def test_no_device_behind_the_tool(tmp_path, path_with):
    path_with(fake_sanitizer(tmp_path / "bin", NO_DEVICE, status=1))
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "pycuda")
    assert report.ok is None and "no usable GPU" in report.reason


def test_a_summary_without_the_kernel_run_is_not_clean(tmp_path, path_with):
    path_with(fake_sanitizer(tmp_path / "bin", "========= ERROR SUMMARY: 0 errors\nTraceback: boom\n", status=1))
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "pycuda")
    assert report.ok is False and "did not complete" in report.reason and "boom" in report.text


def test_a_sanitizer_that_hangs_is_stopped(tmp_path, path_with):
    path_with(fake_sanitizer(tmp_path / "bin", CLEAN, sleep=30))
    report = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "pycuda", timeout_s=1)
    assert report.ok is None and "did not finish within 1 s" in report.reason  # the fake sleeps 30 s


def test_long_reports_are_trimmed():
    out = "\n".join(f"========= error line {i}" for i in range(500)) + "\n========= ERROR SUMMARY: 500 errors"
    text = san.trim(out)
    assert len(text.splitlines()) == san.MAX_LINES and text.endswith("ERROR SUMMARY: 500 errors")


def test_the_engine_stores_a_sanitizer_run(tmp_path, path_with, hermetic):
    from kt_tui.engine.core import Engine
    from kt_tui.store import Store

    from ..engine.test_engine import open_session

    path_with(fake_sanitizer(tmp_path / "bin", MEMCHECK))
    store = Store(hermetic / "s.db")
    sid, gpu, choice = open_session(store)
    choice.backend = "pycuda"  # as if a GPU were here; the stand-in tool never runs the kernel
    engine = Engine(store, sid, gpu, choice, lambda g: None)
    source, spec = engine.version(engine.original)
    report = engine.sanitize(source, spec, "memcheck")
    gpu.close()
    assert report["errors"] == 1
    stored = [e["data"] for e in store.events(sid) if e["kind"] == "sanitize"]
    assert stored and stored[0]["tool"] == "memcheck" and "out of bounds" in stored[0]["text"]


async def test_in_sim_the_kernel_gate_warns_and_has_no_sanitizer_keys(hermetic):
    """At a kernel gate of a SIMULATED session the sanitizer keys are off and the gate says an
    edited kernel cannot be measured there."""
    import asyncio
    import io
    import json

    from rich.console import Console

    from kt_tui.config import load_settings
    from kt_tui.front.commands import tui_app
    from kt_tui.front.session import read_kernel_file
    from kt_tui.store import Store
    from kt_tui.ui.gate_view import render_kernel
    from kt_tui.ui.report_screen import ReportScreen

    from ..conftest import EXAMPLES
    from ..llm_server import MODEL, ScriptedServer
    from ..ui.test_ui import SIZE, gate_key, wait_for

    reply = json.dumps(
        {
            "kernel_code": (EXAMPLES / "vector_add.cu").read_text().replace("a[i] + b[i]", "b[i] + a[i]"),
            "tune_params": {"block_size_x": [32, 64, 128, 256, 512, 1024]},
        }
    )
    with ScriptedServer([reply]) as server:
        settings = load_settings({"backend": "sim", "base_url": server.url, "model": MODEL, "strategy": "one-prompt"})
        app = tui_app(settings, Store(settings.db), kernel_file=read_kernel_file(EXAMPLES / "vector_add.cu"))
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            await wait_for(pilot, lambda: gate_key(screen) == "start", timeout=60)
            await pilot.press("s")
            await wait_for(pilot, lambda: gate_key(screen) == "kernel:one-prompt", timeout=60)
            console = Console(width=150, record=True, file=io.StringIO())
            console.print(render_kernel(screen.gate.body))
            kernel_view = console.export_text()
            assert "1e-05 (default)" in kernel_view and "also checked at n=5592405; n=37" in kernel_view
            panel = str(screen.query_one("#gate").render())
            assert "SIMULATED session: an edited kernel ([e]) cannot be measured here" in panel
            assert screen.check_action("sanitize", ("memcheck",)) is False  # off in sim, and not in the footer
            await pilot.press("m", "R")
            await asyncio.sleep(0.3)
            assert app.screen is screen and not isinstance(app.screen, ReportScreen)
            await pilot.press("q")
    assert not [e for e in Store(settings.db).events(screen.sid) if e["kind"] == "sanitize"]


def test_every_size_runs_in_one_sanitizer_process_and_each_must_complete(tmp_path, path_with):
    """The spec's size and its check sizes go to one child under the tool (CUDA and the tool start
    once); the report is clean only when the kernel completed at every one of them."""
    folder = fake_sanitizer(tmp_path / "bin", CLEAN)
    script = folder / "compute-sanitizer"  # also keeps the job the child was given
    script.write_text(
        script.read_text().replace("sleep", f'for a; do last=$a; done; cp "$last" {folder}/job.json\nsleep')
    )
    path_with(folder)
    more = [{"n": 37}, {"n": 1000}]
    once = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "pycuda", sizes={"n": 4096}, more=more)
    import json

    assert json.loads((folder / "job.json").read_text())["sizes"] == [{"n": 4096}, *more]
    assert once.ok is False and "did not complete" in once.reason  # one "ran" line for three sizes
    (folder / "out.txt").write_text(CLEAN.replace("kt-tui: the kernel ran once\n", "kt-tui: the kernel ran once\n" * 3))
    every = san.sanitize(SOURCE, SPEC, {"block_size_x": 256}, "pycuda", sizes={"n": 4096}, more=more)
    assert (every.ok, every.errors) == (True, 0)
