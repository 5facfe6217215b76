"""Compiles ahead in the mutants' check child: gpu/device/loaders.py's Ahead, on the CompilePool a
tuning run uses (gpu/compiles.py), its binaries loaded by device/outputs.py's run_kernel. Without a
GPU: real nvcc batches, a stand-in for the backend's load and for kernel_tuner's DeviceInterface."""

import os
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

from kt_tui.gpu.compiles import CompilePool
from kt_tui.gpu.device import loaders, outputs
from kt_tui.gpu.device.loaders import Ahead
from kt_tui.gpu.elf import elf_sections

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here")


def _kernel(i: int) -> tuple[str, str]:
    return "k", f'extern "C" __global__ void k(float *y) {{ y[threadIdx.x] = {i}.0f; }}'


def test_no_gpu_to_read_is_one_line_and_no_head_start(monkeypatch, capsys):
    def no_gpu(backend):
        raise RuntimeError("cuInit: CUDA_ERROR_NO_DEVICE")

    monkeypatch.setattr(loaders, "device_cc", no_gpu)
    assert Ahead.start("pycuda", [], [_kernel(0)]) is None
    assert "kt-tui: no compile ahead: RuntimeError: cuInit: CUDA_ERROR_NO_DEVICE" in capsys.readouterr().out


class _Device:
    """kernel_tuner's DeviceInterface for run_kernel: configuration i's kernel string is _kernel(i)'s,
    its own compile says "kernel_tuner's"."""

    compiled: list[str] = []

    def __init__(self, source, iterations, compiler_options, quiet):
        self.dev = types.SimpleNamespace()

    def ready_argument_list(self, arguments):
        return list(arguments)

    def create_kernel_instance(self, source, options, params, verbose):
        text = _kernel(params["i"])[1] if params["i"] >= 0 else "other"
        return types.SimpleNamespace(name="k", kernel_string=text, delete_temp_files=lambda: None)

    def compile_kernel(self, instance, verbose):
        _Device.compiled.append(instance.kernel_string)
        return "kernel_tuner's"

    def run_kernel(self, func, gpu_args, instance):
        gpu_args[0][0] = 1.0
        return True

    def memcpy_dtoh(self, dest, src):
        dest[...] = src


@needs_nvcc
def test_run_kernel_loads_the_batch_compiled_ahead_and_kernel_tuner_compiles_the_rest(monkeypatch):
    """Eight configurations in one nvcc call: inside
    `loading`, run_kernel loads each from its batch under its own symbol; a string not compiled ahead
    (or with other options), or one whose load fails, goes to kernel_tuner's compile, as every one
    does outside `loading`."""
    monkeypatch.setattr(loaders, "device_cc", lambda backend: "90")
    monkeypatch.setattr(outputs, "DeviceInterface", _Device)
    monkeypatch.setattr(outputs.ktp, "check_argument_list", lambda *a: None)
    named = [_kernel(i) for i in range(8)]
    ahead = Ahead.start("pycuda", ["-std=c++17"], named)
    assert ahead is not None
    loaded: list[tuple[bytes, str | None]] = []

    def load(dev, instance, binary, symbol=None):
        if instance.kernel_string == named[7][1]:
            raise RuntimeError("the driver refused it")
        loaded.append((binary, symbol))
        return f"loaded {symbol}"

    def run(i: int, options: list[str]) -> np.ndarray:
        return outputs.run_kernel(
            "k", "", 32, [np.zeros(32, np.float32)], {"i": i}, lang="CUDA", compiler_options=options
        )[0]

    monkeypatch.setattr(loaders, "load", load)
    _Device.compiled = []
    try:
        with outputs.loading(ahead):
            got = [run(i, ["-std=c++17"]) for i in range(8)]
            run(-1, ["-std=c++17"])
            run(0, [])
        run(1, ["-std=c++17"])
    finally:
        ahead.close()
    assert all(g[0] == 1.0 for g in got)  # the outputs copied back
    assert _Device.compiled == [named[7][1], "other", named[0][1], named[1][1]] and len(loaded) == 7
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
        said = ahead.binary([], "__global__ void k() { nonsense; }")
    finally:
        ahead.close()
    assert isinstance(said, str) and "nonsense" in said
    assert ahead.binary([], "never asked") is None


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
        assert isinstance(ahead.binary([], named[5][1]), tuple)
        waiting = [not ahead.futures[text].done() for _, text in named[1:5]]
    finally:
        ahead.close()
    assert all(waiting)  # one compile at a time: the first, then the one asked for


@needs_nvcc
def test_a_checks_kernels_compile_on_the_sessions_pool_and_the_worker_loads_them(monkeypatch):
    """A check's runs at other sizes (gpu/checking.py) are tuning runs of one configuration: their
    kernels, the original's and the configuration's at each size, are queued on the session's pool
    at once, before the first runs, and each Run carries its binary."""
    from kt_tui.gpu import checking
    from kt_tui.gpu.protocol import CheckJob
    from kt_tui.gpu.wire import Run
    from kt_tui.kernel.spec import load_spec

    from ..conftest import EXAMPLES
    from ..helpers import check_device, tuner_on

    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    source = (EXAMPLES / "vector_add.cu").read_text()
    sizes = [{"label": f"n={n}", "sizes": {"n": n}} for n in (37, 1000)]
    job = CheckJob("c", source, spec.to_dict(), source, spec.to_dict(), spec.baseline_params(), "pycuda", sizes,
                   [{"block_size_x": 64}])  # fmt: skip
    monkeypatch.setattr(checking, "_REFS", {})
    queued, ahead = [], CompilePool.ahead
    monkeypatch.setattr(CompilePool, "ahead", lambda pool, items: queued.append(list(items)) or ahead(pool, items))
    sent: list = []
    tuner = tuner_on(check_device(lambda s, p: {"c": np.zeros(s.sizes["n"], np.float32)}, sent=sent))
    tuner.arch = "sm_90"  # as the probe says it of an H100
    events: list = []
    try:
        tuner.run(job, lambda kind, payload: events.append(payload) if kind == "check" else None, 120)
        assert tuner.compiles is not None and tuner.compiles.compiled == 4
    finally:
        tuner.close()
    assert len(queued[0]) == 4 and [k for k, _, _ in queued[0]] == ["n=37@64", "n=37@64", "n=1000@64", "n=1000@64"]
    runs = [m for m in sent if isinstance(m, Run)]
    assert [r.params["block_size_x"] for r in runs] == [256, 64, 256, 64]  # at each size the original, then 64
    assert all(r.binary is not None and r.binary.startswith(b"\x7fELF") for r in runs)
    assert [e["status"] for e in events] == ["ok", "ok"]
    tuner = tuner_on(check_device(lambda s, p: {"c": np.zeros(s.sizes["n"], np.float32)}, sent=sent))
    tuner.arch = "sm_90"
    try:
        pool = tuner.compile_pool(spec, "pycuda")
        job.spec = dict(job.spec, compiler_options=["-O2"])
        sent.clear()
        tuner.run(job, lambda kind, payload: None, 120)
        assert tuner.compiles is pool and pool.compiled == 0  # a pool compiling for other options is left alone
    finally:
        tuner.close()
    assert sent and all(m.binary is None for m in sent if isinstance(m, Run))  # the worker compiles them


@needs_nvcc
def test_a_check_leaves_the_sessions_pool_its_whole_window_for_the_next_run(monkeypatch):
    """A check's kernels are queued on the session's pool under keys of their own ("n=37@64"); its
    runs ask for them by their kernel strings. Once the check is over, nothing of it counts as
    compiled ahead and not yet asked for: the next run's configurations compile ahead at once."""
    from kt_tui.gpu import checking, compiles
    from kt_tui.gpu.ktsource import kernel_string
    from kt_tui.gpu.protocol import CheckJob
    from kt_tui.kernel.spec import load_spec

    from ..conftest import EXAMPLES
    from ..helpers import check_device, tuner_on

    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    monkeypatch.setenv("KT_TUI_PREFETCH_WORKERS", "1")
    monkeypatch.setattr(compiles, "WINDOW", 2)  # a window of two: the check's two sizes would fill it
    monkeypatch.setattr(compiles, "AHEAD", 1)
    monkeypatch.setattr(checking, "_REFS", {})
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    source = (EXAMPLES / "vector_add.cu").read_text()
    sizes = [{"label": f"n={n}", "sizes": {"n": n}} for n in (37, 1000)]
    job = CheckJob("c", source, spec.to_dict(), source, spec.to_dict(), spec.baseline_params(), "pycuda", sizes,
                   [{"block_size_x": 64}])  # fmt: skip
    for again in (False, True):  # again: a new session's pool, the references at these sizes known from the first
        tuner = tuner_on(check_device(lambda s, p: {"c": np.zeros(s.sizes["n"], np.float32)}))
        tuner.arch = "sm_90"
        try:
            tuner.run(job, lambda kind, payload: None, 120)
            pool = tuner.compiles
            assert pool is not None and pool.window == 2 and len(checking._REFS) == 2
            assert pool.compiled == (2 if again else 4)  # the known references are not compiled again
            pool.ahead([("128", *kernel_string(spec, source, {"block_size_x": 128}))])
            assert not pool.queued  # started at once, not held behind the check's kernels
        finally:
            tuner.close()
