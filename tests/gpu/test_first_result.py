"""The time to the first tuned result (issue 24 item 1, the CPU side): the GPU worker starts the
CUDA driver while it imports (gpu/device/cudawarm.py), and `kt-tui run --auto` loads only what its
first result needs before that result. No GPU here: a stand-in libcuda.so.1 takes the driver's place."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

STAND_IN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
static void note(const char *what) {
    const char *p = getenv("STANDIN_LOG");
    if (!p) return;
    FILE *f = fopen(p, "a");
    fprintf(f, "%s %ld %d\n", what, (long)syscall(SYS_gettid), (int)getpid());
    fclose(f);
}
int cuInit(unsigned flags) {
    const char *gate = getenv("STANDIN_GATE");
    note("cuInit");
    for (int i = 0; gate && i < 600 && access(gate, F_OK) != 0; i++) usleep(100000);
    return 0;
}
int cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; note("cuDeviceGet"); return 0; }
int cuDevicePrimaryCtxRetain(void **ctx, int dev) { static int c; *ctx = &c; note("cuDevicePrimaryCtxRetain"); return 0; }
"""


@pytest.fixture
def stand_in_driver(tmp_path, monkeypatch):
    """A libcuda.so.1 whose cuInit waits for a file (STANDIN_GATE) and which logs each call with its
    thread: the spawned worker finds it through LD_LIBRARY_PATH."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the stand-in driver")
    lib = tmp_path / "lib"
    lib.mkdir()
    (tmp_path / "standin.c").write_text(STAND_IN)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib / "libcuda.so.1"), str(tmp_path / "standin.c")], check=True)
    monkeypatch.setenv("LD_LIBRARY_PATH", str(lib))
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "driver.log"))
    monkeypatch.setenv("KT_TUI_TRACE", str(tmp_path / "trace"))
    monkeypatch.delenv("KT_TUI_CUDA_WARM", raising=False)
    return tmp_path


def _wait_for(path: Path, step: str, timeout: float = 60) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        steps = [line.split(" ", 2)[2].strip() for line in path.read_text().splitlines()] if path.exists() else []
        if step in steps:
            return steps
        time.sleep(0.05)
    raise AssertionError(f"no {step!r} in the trace within {timeout:.0f} s: {steps}")


def test_the_worker_imports_while_the_cuda_driver_starts_on_a_thread(stand_in_driver):
    from kt_tui.gpu.tuner import Tuner

    gate = stand_in_driver / "gate"
    os.environ["STANDIN_GATE"] = str(gate)  # the stand-in's cuInit holds until this file exists
    worker = Tuner(log_path=str(stand_in_driver / "worker.log"))
    try:
        worker.start()
        trace = stand_in_driver / "trace"
        steps = _wait_for(trace, "worker: imports done")  # done while cuInit still runs
        assert "worker: CUDA context up" not in steps
        gate.touch()
        _wait_for(trace, "worker: CUDA context up")
    finally:
        os.environ.pop("STANDIN_GATE", None)
        worker.close()
    calls = [line.split() for line in (stand_in_driver / "driver.log").read_text().splitlines()]
    assert [c[0] for c in calls] == ["cuInit", "cuDeviceGet", "cuDevicePrimaryCtxRetain"]
    name, tid, pid = calls[0]
    assert tid != pid  # on a thread of its own, not the worker's main thread


def _modules_at_first_result(tmp: Path, *flags: str) -> dict:
    """`kt-tui run examples/vector_add.cu --auto --json` in a fresh process; the modules loaded in
    the app's process when its first result arrived (the trace's "main: first result" step)."""
    out = tmp / "modules.json"
    code = textwrap.dedent(f"""
        import json, os, sys
        import kt_tui.gpu.timeline as timeline

        def mark(step, _mark=timeline.mark):
            _mark(step)
            if step.startswith("main: first result") and not os.path.exists({str(out)!r}):  # the first only
                with open({str(out)!r}, "w") as f:
                    json.dump(sorted(k for k, v in sys.modules.items() if v is not None), f)

        if __name__ == "__main__":
            timeline.mark = mark  # before kt_tui's modules bind it
            from kt_tui.cli import entry
            sys.argv[0] = "kt-tui"
            raise SystemExit(entry())
    """)
    script = tmp / "run.py"
    script.write_text(code)
    path = os.pathsep.join(p for p in (str(tmp / "site"), str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, KT_TUI_DATA_DIR=str(tmp), KT_TUI_CONFIG_DIR=str(tmp))
    cmd = [sys.executable, str(script), "run", str(ROOT / "examples/vector_add.cu"), "--auto", "--json"]
    got = subprocess.run(
        [*cmd, "--db", str(tmp / "o.db"), *flags], env=env, capture_output=True, text=True, timeout=300
    )
    assert got.returncode == 0, got.stderr[-3000:]
    assert json.loads(got.stdout[got.stdout.index("{") :])["results"] >= 1
    return {"modules": json.loads(out.read_text()), "stderr": got.stderr}


def test_run_auto_loads_no_gpu_library_or_llm_client_before_its_first_result(tmp_path):
    """The app's process compile-checks the kernel with kernel_tuner's own source preparation, but
    runs nothing on a GPU: no backend module (pycuda, here a stand-in that would be found), no
    NVML, no LLM client, no Textual, no exporter before the first result."""
    site = tmp_path / "site" / "pycuda"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("")
    (site / "driver.py").write_text(
        "raise ImportError('a stand-in: no driver here')"
    )  # found: only kt-tui keeps it out
    got = _modules_at_first_result(tmp_path, "--backend", "auto")
    # the stand-in pycuda cannot run: the recorded cache is replayed, or on a GPU host another backend runs
    assert "Replaying" in got["stderr"] or shutil.which("nvidia-smi")
    loaded = set(got["modules"])
    assert "kernel_tuner.core" in loaded  # the compile check ran in this process
    for name in ("pycuda", "pycuda.driver", "kernel_tuner.backends.pycuda", "kernel_tuner.observers.nvml"):
        assert name not in loaded, name
    for name in ("openai", "textual", "kt_tui.export", "kt_tui.gpu.device.main", "cProfile"):
        assert name not in loaded, name


def test_run_starts_the_compile_check_before_the_app_has_loaded_and_checks_once(hermetic, monkeypatch, tmp_path):
    """nvcc checks the kernel while the settings, the engine and the store load; the session's
    check is that one (for the usual arch), not a second compile."""
    import threading

    from kt_tui import cli
    from kt_tui.engine import precheck

    calls = []
    real = precheck.compile_errors

    def counted(source, spec, path, arch):
        calls.append((threading.current_thread().name, arch))
        return real(source, spec, path, arch)

    monkeypatch.setattr(precheck, "compile_errors", counted)
    trace = tmp_path / "trace"
    monkeypatch.setenv("KT_TUI_TRACE", str(trace))
    assert cli.main(["run", str(ROOT / "examples/vector_add.cu"), "--auto", "--backend", "auto"]) == 0
    from kt_tui.gpu.compile import DEFAULT_ARCH

    assert calls == [("kt-tui-compile-check", DEFAULT_ARCH)]
    steps = [line.split(" ", 2)[2].strip() for line in trace.read_text().splitlines()]
    assert steps.index("main: early compile check started") < steps.index("main: imports done")


def test_the_early_compile_check_says_a_compile_error_as_the_command_did(hermetic, tmp_path, capsys):
    from kt_tui import cli

    kernel = tmp_path / "vector_add.cu"
    kernel.write_text((ROOT / "examples/vector_add.cu").read_text().replace("c[i] =", "c[i] = undeclared +", 1))
    shutil.copy(ROOT / "examples/vector_add.cu.toml", tmp_path / "vector_add.cu.toml")
    assert cli.main(["run", str(kernel), "--auto", "--backend", "auto"]) == 2
    err = capsys.readouterr().err
    assert "does not compile" in err and "undeclared" in err and f"{kernel}:" in err


def test_a_replay_starts_no_early_compile_check(hermetic, monkeypatch, tmp_path):
    from kt_tui import cli
    from kt_tui.engine import precheck

    calls = []
    monkeypatch.setattr(precheck, "compile_errors", lambda *a: calls.append(a))
    assert cli.main(["run", str(ROOT / "examples/vector_add.cu"), "--auto", "--backend", "sim"]) == 0
    assert calls == []  # the recorded cache is of this very version: nothing is compiled


def test_the_remembered_probe_keeps_the_gpus_arch_and_refuses_a_strange_one(tmp_path):
    from kt_tui.gpu.probe_cache import cached_probe, remembered

    calls = []

    def probe(backends):
        calls.append(backends)
        return {"backend": "pycuda", "gpu": "NVIDIA A100", "arch": "sm_80", "errors": {}}

    path = tmp_path / "probe.json"
    assert cached_probe(probe, path, fingerprint=lambda: "fp")(("pycuda",))["arch"] == "sm_80"
    again = cached_probe(probe, path, fingerprint=lambda: "fp")(("pycuda",))
    assert (again["arch"], again["cached"], len(calls)) == ("sm_80", True, 1)
    stored = json.loads(path.read_text())
    stored["answers"]["pycuda"]["arch"] = "sm_80 -Xcompiler -fplugin=x.so"
    path.write_text(json.dumps(stored))
    assert "arch" not in cached_probe(probe, path, fingerprint=lambda: "fp")(("pycuda",))
    assert remembered(path, ("pycuda",)) is None  # this machine has no NVIDIA driver: nothing is trusted


def test_the_early_compile_check_targets_the_remembered_gpus_arch(hermetic, monkeypatch):
    import argparse

    from kt_tui.engine import precheck
    from kt_tui.engine.backend import BackendChoice
    from kt_tui.front import early
    from kt_tui.front.kernelfile import load_kernel_spec, read_kernel_file
    from kt_tui.gpu import probe_cache

    monkeypatch.setattr(probe_cache, "fingerprint", lambda: "fp")
    data = hermetic / "data"
    data.mkdir()
    answer = {"backend": "pycuda", "gpu": "NVIDIA A100", "arch": "sm_80"}
    (data / "backend-probe.json").write_text(json.dumps({"fingerprint": "fp", "answers": {"pycuda": answer}}))
    calls = []
    monkeypatch.setattr(precheck, "compile_errors", lambda source, spec, path, arch: calls.append(arch))
    kernel = ROOT / "examples/vector_add.cu"
    early.start_compile_check(argparse.Namespace(kernel_path=str(kernel), spec=None, kernel=None, backend="pycuda"))
    kf = read_kernel_file(kernel)
    _, spec = load_kernel_spec(kf, None, None)
    found = early.take_compile_check(kf.source, spec, kf.path)
    assert found is not None and found[0] == "sm_80"
    choice = precheck.checked_backend(
        lambda: BackendChoice("pycuda", "NVIDIA A100", arch="sm_80"), kf.source, spec, kf.path, early=found
    )
    assert choice.backend == "pycuda" and calls == ["sm_80"]  # one compile, for the GPU's own arch
    assert early.take_compile_check(kf.source, spec, kf.path) is None  # taken once


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["pycuda", "nvcuda", "cupy"])
def test_on_a_gpu_the_worker_starts_the_driver_early_and_the_backend_runs_in_that_context(
    backend, hermetic, tmp_path, monkeypatch, capsys
):
    from ..helpers import run_cli

    trace = tmp_path / "trace"
    monkeypatch.setenv("KT_TUI_TRACE", str(trace))
    code, out = run_cli(capsys, "run", ROOT / "examples/vector_add.cu", "--auto", "--json", "--backend", backend)
    assert code == 0, out
    assert out["backend"] == backend and out["results"] == 6
    steps = [line.split(" ", 2)[2].strip() for line in trace.read_text().splitlines()]
    assert "worker: CUDA context up" in steps, steps
