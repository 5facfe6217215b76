"""A device worker's Load and Runs (gpu/device/session.py), kernel_tuner's DeviceInterface stood in
for: a launch refused for resources is a runtime error, a wrong output a wrong result with its
verdicts, the outputs are reset before each checked run, a lost context is said, and a replay
answers from the recorded cache."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kt_tui.gpu.device import session
from kt_tui.gpu.device.compare import BACKENDS
from kt_tui.gpu.protocol import TuneJob
from kt_tui.gpu.wire import Run
from kt_tui.kernel.spec import load_spec

from ..conftest import EXAMPLES
from ..helpers import FakeDeviceInterface, open_load
from .host_backend import HostBackend, HostFunctions
from .scale_fakes import matmul_job

N = 1024


class Backend:
    def __init__(self) -> None:
        self.refreshed = 0

    def refresh_memory(self, gpu_args, host_args, should_sync) -> None:
        self.refreshed += 1
        for i, sync in enumerate(should_sync):
            if sync:
                gpu_args[i][...] = host_args[i]


class Device(FakeDeviceInterface):
    """Runs "vector_add" on the host: c = a + b, or c = a + b + 1 for block_size_x 64; 1024 threads
    are refused for resources, and 512 loses the context."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.dev = Backend()

    def ready_argument_list(self, arguments):
        return [np.array(a) if isinstance(a, np.ndarray) else a for a in arguments]

    def create_kernel_instance(self, kernel_source, kernel_options, params, verbose):
        return dataclasses.make_dataclass("Instance", ["params"])(dict(params))

    def compile_kernel(self, instance, verbose):
        return instance.params["block_size_x"]

    def run_kernel(self, func, gpu_args, instance):
        if func == 1024:
            return False
        if func == 512:
            raise RuntimeError("cuLaunchKernel: an illegal memory access was encountered")
        c, a, b = gpu_args[:3]
        c[...] += a + b + (1 if func == 64 else 0)  # += : a second run without a reset would be wrong
        return True

    def memcpy_dtoh(self, dest, src):
        dest[...] = src

    def benchmark(self, func, gpu_args, instance, verbose, objective):
        self.run_kernel(func, gpu_args, instance)
        return {"time": 0.5, "times": [0.5] * 7}


def _opened(monkeypatch, reference=True):
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    spec = dataclasses.replace(spec, sizes={"n": N})
    for arg in spec.args:
        if arg.output:
            arg.init = "zeros"
    plain = spec.to_dict()
    job = TuneJob(run_id="r", source=(EXAMPLES / "vector_add.cu").read_text(), spec=plain, backend="cupy")
    opened = open_load(job, monkeypatch, Device)
    a, b = opened.host_args[1], opened.host_args[2]
    opened.reference = {"c": a + b} if reference else None
    return opened


def _run(opened, x: int):
    return opened.run(Run("r", str(x), {"block_size_x": x}))


def test_a_right_a_wrong_and_a_refused_launch(monkeypatch):
    opened = _opened(monkeypatch)
    ok, wrong, refused = _run(opened, 32), _run(opened, 64), _run(opened, 1024)
    assert ok.result.status == "ok" and ok.result.verified and ok.result.time_ms == 0.5, ok.result.error
    assert wrong.result.status == "wrong_result" and wrong.result.first_bad == "c[0]"
    assert wrong.result.verdicts[0]["max_abs_err"] == pytest.approx(1.0)
    # a launch refused for resources is a runtime error, not a wrong result (issue 38 item 5)
    assert refused.result.status == "runtime_error" and "too many resources" in refused.result.error
    assert opened.dev.dev.refreshed == 2  # the outputs were reset before each checked run but the first
    again = _run(opened, 32)
    assert again.result.status == "ok"  # the benchmark's runs left no trace in the next check


def test_a_lost_context_is_said_and_the_result_is_kept(monkeypatch):
    ran = _run(_opened(monkeypatch), 512)
    assert ran.context_lost and ran.result.status == "runtime_error" and "illegal memory" in ran.result.error


def test_without_a_reference_nothing_is_run_to_be_checked(monkeypatch):
    opened = _opened(monkeypatch, reference=False)
    ran = _run(opened, 64)
    assert ran.result.status == "ok" and ran.result.verified is None and opened.dev.dev.refreshed == 0


def test_a_replay_answers_from_the_recorded_cache():
    job = matmul_job()
    opened = session.Session()
    from kt_tui.gpu.tunerun import load_for
    from kt_tui.kernel.spec import spec_from_plain

    spec = spec_from_plain(job.spec)
    assert opened.open(load_for(job, spec, dict(spec.tune_params))).error is None
    recorded = opened.run(Run("r", "16,16", {"block_size_x": 16, "block_size_y": 16}))
    missing = opened.run(Run("r", "8,64", {"block_size_x": 8, "block_size_y": 64}))
    refused = opened.run(Run("r", "8,1", {"block_size_x": 8, "block_size_y": 1}))  # 8 < 64 threads
    assert recorded.result.status == "ok" and recorded.result.source == "recorded"
    assert missing.result.status == "not_recorded"
    assert refused.result.status == "invalid"


def test_a_load_that_fails_says_why(tmp_path):
    job = dataclasses.replace(matmul_job(), sim_cache=str(tmp_path / "none.json"))
    from kt_tui.gpu.tunerun import load_for
    from kt_tui.kernel.spec import spec_from_plain

    spec = spec_from_plain(job.spec)
    kind, _, loaded = session.Session().handle(load_for(job, spec, dict(spec.tune_params)))
    assert kind == "loaded" and loaded.error == "the recorded cache file is missing"


# -- the device comparison (gpu/device/compare.py) through the Session, its kernels built for the host
class HostDeviceInterface(Device):
    """As Device, its buffers numpy arrays that compare.py's host-built kernels read in place
    (tests/gpu/host_backend.py); copying an output back is refused, so a verdict can only come from
    the Checker, and kernel_tuner's host reset is absent, so only OutputReset can reset."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.dev = HostFunctions()

    def memcpy_dtoh(self, dest, src):
        raise AssertionError("an output was copied to the host")


@pytest.fixture
def host_device(monkeypatch):
    monkeypatch.setitem(BACKENDS, "HostFunctions", HostBackend)
    HostBackend.builds = 0


def _on_device(monkeypatch):
    """A Session on HostDeviceInterface, loaded with the reference c = a + b."""
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    spec = dataclasses.replace(spec, sizes={"n": N})
    for arg in spec.args:
        if arg.output:
            arg.init = "zeros"
    plain = spec.to_dict()
    job = TuneJob(run_id="r", source=(EXAMPLES / "vector_add.cu").read_text(), spec=plain, backend="cupy")
    opened = open_load(job, monkeypatch, HostDeviceInterface)
    a, b = opened.host_args[1], opened.host_args[2]
    return open_load(dataclasses.replace(job, reference={"c": a + b}), monkeypatch, HostDeviceInterface)


def test_a_wrong_output_is_caught_on_the_device(monkeypatch, host_device):
    opened = _on_device(monkeypatch)
    assert opened.open(opened.load).compare == "device"  # Loaded says where
    ok, wrong = _run(opened, 32), _run(opened, 64)
    assert ok.result.status == "ok" and ok.result.verified, ok.result.error
    assert wrong.result.status == "wrong_result" and wrong.result.first_bad == "c[0]"
    verdict = wrong.result.verdicts[0]
    assert verdict["where"] == "device" and verdict["max_abs_err"] == pytest.approx(1.0)
    assert verdict["mismatches"] == N and HostBackend.builds == 2  # the kernels: built at each Load, not per run


def test_the_outputs_are_reset_on_the_device_between_configurations(monkeypatch, host_device):
    opened = _on_device(monkeypatch)
    c = opened.gpu_args[0]
    for _ in range(3):  # the check and the benchmark each add a + b: without a reset the next is wrong
        ran = _run(opened, 32)
        assert ran.result.status == "ok", ran.result.error
    assert np.array_equal(c, 2 * (opened.host_args[1] + opened.host_args[2]))  # the check's run and one benchmark


def test_each_configuration_is_compared_with_its_own_reference(monkeypatch, host_device):
    """result_params: the Checker's reference is replaced per configuration (set_reference)."""
    opened = _on_device(monkeypatch)
    a, b = opened.host_args[1], opened.host_args[2]
    opened.load = dataclasses.replace(opened.load, result_params=("block_size_x",))
    opened.reference, opened.by_config = None, {(32,): {"c": a + b}, (64,): {"c": a + b + 1}, (128,): {"c": a + b + 5}}
    right, also_right, wrong = _run(opened, 64), _run(opened, 32), _run(opened, 128)
    assert right.result.status == "ok" and also_right.result.status == "ok", (
        right.result.error,
        also_right.result.error,
    )
    assert wrong.result.status == "wrong_result" and wrong.result.verdicts[0]["max_abs_err"] == pytest.approx(5.0)


def test_the_device_copies_are_freed_on_the_next_load(monkeypatch, host_device):
    opened = _on_device(monkeypatch)
    _run(opened, 32)
    held = [opened.checker.backend.held, opened.resetter.backend.held]
    assert all(held)
    opened.open(opened.load)
    assert not any(held) and opened.checker is not None and opened.resetter is not None


def test_a_device_comparison_that_fails_leaves_it_to_the_host(monkeypatch):
    def broken(*a, **kw):
        raise RuntimeError("cuMemAlloc failed: out of memory")

    monkeypatch.setattr(session, "Checker", broken)
    opened = _opened(monkeypatch)
    ok, wrong = _run(opened, 32), _run(opened, 64)
    assert ok.result.status == "ok" and wrong.result.status == "wrong_result", (ok.result.error, wrong.result.error)
    assert wrong.result.verdicts[0]["where"] == "host"
    assert opened.unchecked == "host: the device comparison failed: cuMemAlloc failed: out of memory"


@pytest.mark.gpu
@pytest.mark.parametrize("backend", ["pycuda", "nvcuda", "cupy"])
def test_on_the_gpu_outputs_are_compared_and_reset_on_the_device(backend):
    """A real Session on each backend: Loaded says "device", a right and a wrong reference give ok
    and wrong_result with verdicts reached on the device, and OutputReset puts back the poison."""
    import importlib.util

    from kt_tui.gpu.tunerun import load_for
    from kt_tui.kernel.spec import spec_from_plain

    if importlib.util.find_spec({"pycuda": "pycuda", "nvcuda": "cuda", "cupy": "cupy"}[backend]) is None:
        pytest.skip(f"{backend} is not installed")
    n = (1 << 20) + 3
    spec = dataclasses.replace(load_spec(EXAMPLES / "vector_add.cu.toml"), sizes={"n": n})
    job = TuneJob(run_id="r", source=(EXAMPLES / "vector_add.cu").read_text(), spec=spec.to_dict(), backend=backend)
    opened = session.Session()

    def load(reference):
        plain = dataclasses.replace(job, reference=reference)
        loaded = opened.open(
            load_for(plain, spec_from_plain(plain.spec), dict(spec_from_plain(plain.spec).tune_params))
        )
        assert loaded.error is None, loaded.error
        return loaded

    load(None)
    a, b = opened.host_args[1].copy(), opened.host_args[2].copy()
    try:
        assert load({"c": a + b}).compare == "device"
        right = opened.run(Run("r", "128", {"block_size_x": 128}))
        assert right.result.status == "ok" and right.result.verified, right.result.error
        assert right.result.verdicts[0]["where"] == "device"
        load({"c": a + b + 1})
        wrong = opened.run(Run("r", "256", {"block_size_x": 256}))
        assert wrong.result.status == "wrong_result" and wrong.result.first_bad == "c[0]"
        assert wrong.result.verdicts[0]["where"] == "device" and wrong.result.verdicts[0]["mismatches"] == n
        opened.resetter.reset()
        c = np.zeros_like(opened.host_args[0])
        opened.dev.memcpy_dtoh(c, opened.gpu_args[0])
        assert np.isnan(c).all()  # the poison it was made with, not the benchmark's a + b
    finally:
        opened.close()


def test_a_compile_error_from_the_pool_is_the_result_and_nothing_runs(monkeypatch):
    opened = _opened(monkeypatch)
    asked: list = []
    monkeypatch.setattr(opened.dev, "compile_kernel", lambda *a: asked.append("compile"))
    monkeypatch.setattr(opened.dev, "run_kernel", lambda *a: asked.append("run"))
    ran = opened.run(Run("r", "32", {"block_size_x": 32}, compile_error="kern.cu(3): error: nope", compile_ms=12.5))
    assert ran.result.status == "compile_error" and "error: nope" in ran.result.error
    assert ran.raw["compile_time"] == 12.5 and asked == []


def test_the_pools_binary_is_loaded_and_not_compiled_again(monkeypatch):
    from kt_tui.gpu.device import loaders

    opened = _opened(monkeypatch)
    loaded: list = []
    monkeypatch.setattr(opened.dev, "compile_kernel", lambda *a: pytest.fail("compiled in the worker"))
    monkeypatch.setattr(loaders, "load", lambda dev, instance, binary, symbol: loaded.append((binary, symbol)) or 32)
    ran = opened.run(Run("r", "32", {"block_size_x": 32}, binary=b"\x7fELF...", symbol="k_1", compile_ms=3.0))
    assert ran.result.status == "ok" and ran.result.verified and loaded == [(b"\x7fELF...", "k_1")]
    assert ran.raw["compile_time"] == 3.0


def test_a_binary_the_driver_refuses_is_compiled_in_the_worker(monkeypatch):
    from kt_tui.gpu.device import loaders

    opened = _opened(monkeypatch)

    def refused(*a):
        raise RuntimeError("cuModuleLoadData: CUDA_ERROR_INVALID_IMAGE")

    monkeypatch.setattr(loaders, "load", refused)
    ran = opened.run(Run("r", "64", {"block_size_x": 64}, binary=b"junk"))
    assert ran.result.status == "wrong_result"  # Device's compile_kernel made 64's (wrong) function
