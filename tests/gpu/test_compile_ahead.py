"""Compiles ahead in the processes that call kernel_tuner's run_kernel themselves (a check job, the
mutants' check child, the profiled child): gpu/device/loaders.py's Ahead, on the app's CompilePool
(gpu/compiles.py). Without a GPU: real nvcc batches, a stand-in for the backend's load."""

import os
import shutil
import subprocess
import sys
import types

import pytest

from kt_tui.gpu.compiles import CompilePool
from kt_tui.gpu.device import loaders
from kt_tui.gpu.device.loaders import Ahead
from kt_tui.gpu.elf import elf_sections

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here")


def _kernel(i: int) -> tuple[str, str]:
    return "k", f'extern "C" __global__ void k(float *y) {{ y[threadIdx.x] = {i}.0f; }}'


def test_nothing_is_compiled_ahead_for_cupy_when_turned_off_or_with_nothing_to_compile(monkeypatch):
    monkeypatch.setattr(loaders, "device_cc", lambda backend: pytest.fail("no pool should start"))
    assert Ahead.start("cupy", [], [_kernel(0)]) is None  # cupy compiles through its own cache at the run
    assert Ahead.start("pycuda", [], []) is None
    monkeypatch.setenv("KT_TUI_PREFETCH", "0")
    assert Ahead.start("pycuda", [], [_kernel(0)]) is None


def test_no_gpu_to_read_is_one_line_and_no_head_start(monkeypatch, capsys):
    def no_gpu(backend):
        raise RuntimeError("cuInit: CUDA_ERROR_NO_DEVICE")

    monkeypatch.setattr(loaders, "device_cc", no_gpu)
    assert Ahead.start("pycuda", [], [_kernel(0)]) is None
    assert "kt-tui: no compile ahead: RuntimeError: cuInit: CUDA_ERROR_NO_DEVICE" in capsys.readouterr().out


@needs_nvcc
def test_kernel_tuners_compile_loads_the_batch_compiled_ahead_and_compiles_the_rest_itself(monkeypatch):
    """Eight configurations in one nvcc call (the mutants' check relies on it for its time): inside
    `serving`, kernel_tuner's DeviceInterface.compile_kernel loads each from its batch under its own
    symbol; a string not compiled ahead, or one whose load fails, goes to kernel_tuner's compile;
    after it, kernel_tuner's own compile_kernel is back."""
    import kernel_tuner.core as core

    monkeypatch.setattr(loaders, "device_cc", lambda backend: "90")
    named = [_kernel(i) for i in range(8)]
    ahead = Ahead.start("pycuda", ["-std=c++17"], named)
    assert ahead is not None
    loaded: list[tuple[bytes, str | None]] = []

    def load(dev, instance, binary, symbol=None):
        if instance.kernel_string == named[7][1]:
            raise RuntimeError("the driver refused it")
        loaded.append((binary, symbol))
        return f"loaded {symbol}"

    monkeypatch.setattr(loaders, "load", load)
    own = core.DeviceInterface.compile_kernel
    monkeypatch.setattr(core.DeviceInterface, "compile_kernel", lambda dev, inst, verbose: "kernel_tuner's")
    original = core.DeviceInterface.compile_kernel
    try:
        with ahead.serving():
            dev = types.SimpleNamespace()
            got = [
                core.DeviceInterface.compile_kernel(dev, types.SimpleNamespace(kernel_string=t), False)
                for _, t in named
            ]
            other = core.DeviceInterface.compile_kernel(dev, types.SimpleNamespace(kernel_string="other"), False)
        assert core.DeviceInterface.compile_kernel is original
    finally:
        ahead.close()
    assert own is not original
    assert got[7] == "kernel_tuner's" and other == "kernel_tuner's"
    assert all(g.startswith("loaded ") for g in got[:7]) and len(loaded) == 7
    assert ahead.pool.batches >= 1  # compiled together, not one nvcc call each
    symbols = {s for _, s in loaded}
    assert len(symbols) == 7 and None not in symbols  # each its own member of a batch
    for binary, symbol in loaded:
        assert any(name.endswith(f".{symbol}") for name in elf_sections(binary))


@needs_nvcc
def test_a_compile_error_comes_back_as_nvccs_text(monkeypatch):
    monkeypatch.setattr(loaders, "device_cc", lambda backend: "90")
    ahead = Ahead.start("pycuda", [], [("k", "__global__ void k() { nonsense; }")])
    assert ahead is not None
    try:
        said = ahead.binary("__global__ void k() { nonsense; }")
    finally:
        ahead.close()
    assert isinstance(said, str) and "nonsense" in said
    assert ahead.binary("never asked") is None


def test_the_compile_threads_keep_off_the_device_workers_core():
    """nvcc, started from the pool's threads, runs on every core but the device worker's."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        pytest.skip("one core: nothing to keep apart")
    pool = CompilePool("pycuda", "90", [])
    try:
        assert pool.threads is not None and pool.size == len(cores) - 1
        cmd = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
        ran = pool.threads.submit(subprocess.check_output, cmd).result(timeout=60).decode().strip()
    finally:
        pool.close()
    assert ran == str(cores[1:])


@needs_nvcc
def test_the_kernel_kernel_tuner_waits_for_compiles_before_those_queued_ahead_of_it(monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    ahead = Ahead(CompilePool("pycuda", "90", [], size=1, window=1 << 20))
    named = [_kernel(i) for i in range(6)]
    ahead.add(named)
    try:
        assert isinstance(ahead.binary(named[5][1]), tuple)
        waiting = [not ahead.futures[text].done() for _, text in named[1:5]]
    finally:
        ahead.close()
    assert all(waiting)  # one compile at a time: the first, then the one asked for
