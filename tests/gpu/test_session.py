"""A device worker's Load and Runs (gpu/device/session.py), kernel_tuner's DeviceInterface stood in
for: a launch refused for resources is a runtime error, a wrong output a wrong result with its
verdicts, the outputs are reset before each checked run, a lost context is said, and a replay
answers from the recorded cache."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kt_tui.gpu.device import session
from kt_tui.gpu.protocol import TuneJob
from kt_tui.gpu.wire import Run
from kt_tui.kernel.spec import load_spec

from ..conftest import EXAMPLES
from ..helpers import FakeDeviceInterface, open_load
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
