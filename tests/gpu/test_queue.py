"""Several device workers pull configurations from one queue (gpu/runner.py QueueRunner): a free
device takes the next one, nothing is dealt or stopped to rebalance, and nothing is lost, measured
twice or over budget: with stand-in devices, with worker processes replaying a recorded cache
(a crash among them), and with the actors of a local Ray cluster of CPU-only workers."""

from __future__ import annotations

import dataclasses
import os
import shutil
import threading
import time
from pathlib import Path

import pytest

from kt_tui.gpu.devices import LocalDevice
from kt_tui.gpu.elf import elf_sections
from kt_tui.gpu.simcache import read_cache
from kt_tui.gpu.tuner import Tuner
from kt_tui.kernel.spec import spec_from_plain

from ..helpers import fake_device, tuner_on
from .scale_fakes import CACHE, matmul_job
from .test_compiles import _sm


def _space(n: int) -> list[dict]:
    return [{"block_size_x": x, "block_size_y": y} for x in range(1, n + 1) for y in (1,)]


def _wide(n: int, **kw):
    """The matmul job over a space of n configurations, each asked for (stand-in devices run them)."""
    job = matmul_job(configs=_space(n), **kw)
    job.spec = dict(
        job.spec,
        tune_params={"block_size_x": list(range(1, n + 1)), "block_size_y": [1]},
        restrictions=[],
        defaults={"block_size_x": 1, "block_size_y": 1},
    )
    return job


def _run(tuner, job, timeout_s: float = 10) -> tuple[list, dict]:
    got: list = []
    info = tuner.run(job, lambda k, p: got.append(p) if k == "result" else None, timeout_s)
    return got, info


def _answer(params: dict) -> dict:
    return {"time": 1.0, "times": [1.0]}


def test_a_faster_device_takes_more_and_every_configuration_runs_once():
    calls: list = []
    fast = fake_device("gpu0", answer=_answer, calls=calls)
    slow = fake_device("gpu1", answer=_answer, pace=0.03, calls=calls)
    got, info = _run(tuner_on(fast, slow), _wide(80))
    keys = [r.key for r in got]
    assert len(keys) == len(set(keys)) == 80 and not info["stopped"] and info["workers"] == 2
    assert sorted(k for _, k, _ in calls) == sorted(keys)  # each handed out once
    assert sum(r.worker == "gpu0" for r in got) > 50 and any(r.worker == "gpu1" for r in got)


def test_the_checks_gpu_measures_nothing_while_the_test_runs_then_joins_the_queue():
    calls: list = []
    first = fake_device("gpu0", answer=_answer, pace=0.005, calls=calls)
    checked = fake_device("gpu1", answer=_answer, pace=0.005, calls=calls)
    tuner = tuner_on(first, checked)
    tuner.check_gpu = lambda: "gpu1"
    release = tuner.checking.hold()
    ended: list[float] = []

    def test() -> None:
        time.sleep(0.25)
        ended.append(time.monotonic())
        release()

    threading.Thread(target=test).start()
    got, info = _run(tuner, _wide(150))
    keys = [r.key for r in got]
    assert len(keys) == len(set(keys)) == 150 and not info["stopped"]
    assert sum(r.worker == "gpu1" for r in got) >= 8
    assert min(t for label, _, t in calls if label == "gpu1") > ended[0]  # nothing handed to it during the test


def test_the_checks_gpu_joins_once_the_test_has_left_it_not_once_the_test_has_judged(monkeypatch):
    """The check's child judges its arrays after its runs (seconds of numpy for a large problem):
    the GPU it ran on measures meanwhile."""
    from kt_tui.gpu import checkrun

    calls: list = []
    tuner = tuner_on(
        fake_device("gpu0", answer=_answer, pace=0.005, calls=calls),
        fake_device("gpu1", answer=_answer, pace=0.005, calls=calls),
    )
    tuner.check_gpu = lambda: "gpu1"
    judged: list[float] = []

    def test_check(source, spec, backend, timeout_s, device, gpu_free):
        time.sleep(0.1)  # the sanitizer and the runs
        gpu_free()
        time.sleep(0.5)  # the child judges
        judged.append(time.monotonic())
        return {"state": "ok"}

    monkeypatch.setattr(checkrun, "test_check", test_check)
    t = threading.Thread(target=tuner.test_check, args=("src", {}, "cupy", 60))
    t.start()
    deadline = time.monotonic() + 5
    while not tuner.checking.busy() and time.monotonic() < deadline:
        time.sleep(0.001)
    got, _ = _run(tuner, _wide(200))
    t.join()
    assert len({r.key for r in got}) == 200 and not tuner.checking.busy()
    assert min(t for label, _, t in calls if label == "gpu1") < judged[0]


def test_a_budget_holds_over_every_device():
    tuner = tuner_on(fake_device("gpu0", answer=_answer), fake_device("gpu1", answer=_answer, pace=0.01))
    got, info = _run(tuner, _wide(200, max_configs=90))
    keys = [r.key for r in got]
    assert len(keys) == len(set(keys)) == 90 and not info["stopped"]


def test_a_stop_ends_the_run_after_the_configurations_in_flight():
    calls: list = []
    tuner = tuner_on(
        fake_device("gpu0", answer=_answer, pace=0.002, calls=calls),
        fake_device("gpu1", answer=_answer, pace=0.01, calls=calls),
    )
    threading.Timer(0.1, tuner.request_stop).start()
    got, info = _run(tuner, _wide(400))
    assert info["stopped"] and len(got) < 200
    assert len({r.key for r in got}) == len(got) == len(calls)  # what was handed out came back, once


def test_a_pause_holds_every_device_between_configurations():
    calls: list = []
    tuner = tuner_on(
        fake_device("gpu0", answer=_answer, pace=0.002, calls=calls),
        fake_device("gpu1", answer=_answer, pace=0.004, calls=calls),
    )
    marks: dict[str, float] = {}
    handed: list[int] = []

    def pause_then_go() -> None:
        tuner.pause(True)
        marks["paused"] = time.monotonic()
        time.sleep(0.05)
        handed.append(len(calls))
        time.sleep(0.4)
        handed.append(len(calls))
        tuner.pause(False)

    threading.Timer(0.05, pause_then_go).start()
    got, info = _run(tuner, _wide(120))
    assert len({r.key for r in got}) == len(got) == 120 and not info["stopped"]
    assert handed[0] == handed[1]  # nothing handed out while paused


def _replay_devices(n: int) -> list:
    devices = [LocalDevice(i) for i in range(n)]
    for d in devices:
        d.warm_cuda = False
    return devices


def test_two_worker_processes_replaying_a_cache_share_the_queue(monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.4")  # long enough that both have started before the end
    tuner = tuner_on(*_replay_devices(2))
    try:
        got, info = _run(tuner, matmul_job(), timeout_s=60)
    finally:
        tuner.close()
    recorded = read_cache(CACHE)["cache"]
    keys = [r.key for r in got]
    assert len(keys) == len(set(keys)) and set(keys) == set(recorded)
    assert {r.worker for r in got} == {"gpu0", "gpu1"} and {r.source for r in got} == {"recorded"}
    assert {r.key: r.time_ms for r in got if r.status == "ok"} == {
        k: e["time"] for k, e in recorded.items() if isinstance(e.get("time"), float) and "kt_status" not in e
    }


def test_a_worker_crash_costs_its_configuration_and_the_queue_goes_on(monkeypatch):
    recorded = read_cache(CACHE)["cache"]
    victim = sorted(recorded)[5]
    monkeypatch.setenv("KT_TUI_FAULT", f"crash:{victim}")
    tuner = tuner_on(*_replay_devices(2))
    try:
        got, info = _run(tuner, matmul_job(), timeout_s=60)
        restarts = tuner.restarts
    finally:
        tuner.close()
    keys = [r.key for r in got]
    assert len(keys) == len(set(keys)) and set(keys) == set(recorded) and not info["stopped"]
    crashed = next(r for r in got if r.key == victim)
    assert crashed.status == "crash" and "died" in crashed.error
    assert restarts == 1


@pytest.fixture
def local_ray():
    ray = pytest.importorskip("ray")
    yield ray
    if ray.is_initialized():
        ray.shutdown()


def test_cpu_only_ray_actors_pull_from_one_queue(local_ray, monkeypatch, tmp_path):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.4")
    tuner = Tuner(gpus=2, via="ray", log_path=str(tmp_path / "ray.log"))
    try:
        got, info = _run(tuner, matmul_job(), timeout_s=120)
    finally:
        tuner.close()
    recorded = read_cache(CACHE)["cache"]
    keys = [r.key for r in got]
    assert len(keys) == len(set(keys)) and set(keys) == set(recorded) and info["workers"] == 2
    assert len({r.worker for r in got}) == 2


# -- the compile pool ahead of the queue (gpu/compiles.py) -------------------------------------------
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc here")
BROKEN = "#if block_size_x == 2\n#error broken on purpose\n#endif\n"


def _compiled_job(n: int, source_prefix: str = "", **kw):
    """The wide matmul job for pycuda: the stand-in devices get the pool's sm_90 binaries."""
    job = _wide(n, backend="pycuda", **kw)
    return dataclasses.replace(job, source=source_prefix + job.source)


def _sm90_tuner(*devices):
    tuner = tuner_on(*devices)
    tuner.arch = "sm_90"  # as the probe says it of an H100
    return tuner


def _descendants() -> list[str]:
    """The names of this process's living descendants (from /proc)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        pid, rest = int(text.split(" ", 1)[0]), text.rsplit(")", 1)
        fields = rest[1].split()
        if fields[0] == "Z":
            continue
        parents[pid], names[pid] = int(fields[1]), text[text.index("(") + 1 : text.rindex(")")]
    mine, found = {os.getpid()}, True
    while found:
        found = False
        for pid, parent in parents.items():
            if parent in mine and pid not in mine:
                mine.add(pid)
                found = True
    return [names[p] for p in mine if p != os.getpid()]


@needs_nvcc
def test_each_run_carries_the_pools_sm90_binary_in_order_and_a_compile_error_runs_nothing(monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    runs: list = []
    tuner = _sm90_tuner(fake_device("gpu0", answer=_answer, runs=runs))
    try:
        got, info = _run(tuner, _compiled_job(4, BROKEN), timeout_s=300)
        pool = tuner.compiles
    finally:
        tuner.close()
    assert [r.key for r in runs] == ["1,1", "2,1", "3,1", "4,1"] and not info["stopped"]
    assert len(got) == 4 and pool is not None and pool.compiled == 4
    bad = runs[1]
    assert bad.binary is None and "broken on purpose" in bad.compile_error and bad.compile_ms is not None
    for run in (runs[0], *runs[2:]):
        assert run.compile_error is None and run.binary[:4] == b"\x7fELF" and _sm(run.binary) == 90
        assert run.compile_ms > 0 and elf_sections(run.binary).get(f".text.{run.symbol or 'matmul'}")
    assert len({r.binary for r in (runs[0], *runs[2:])}) == 3  # each configuration its own code


@needs_nvcc
def test_a_batch_members_run_names_its_symbol(monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "8")
    runs: list = []
    tuner = _sm90_tuner(fake_device("gpu0", answer=_answer, runs=runs))
    try:
        _run(tuner, _compiled_job(12), timeout_s=300)
        pool = tuner.compiles
    finally:
        tuner.close()
    assert [r.key for r in runs] == [f"{x},1" for x in range(1, 13)]
    assert pool is not None and pool.batches >= 1
    batched = [r for r in runs if r.symbol]
    assert batched and all(elf_sections(r.binary).get(f".text.{r.symbol}") for r in batched)


@needs_nvcc
def test_prepare_compiles_the_baseline_before_its_run_and_close_leaves_no_compiler(monkeypatch):
    monkeypatch.setenv("KT_TUI_COMPILE_BATCH", "1")
    runs: list = []
    tuner = _sm90_tuner(fake_device("gpu0", answer=_answer, runs=runs))
    job = dataclasses.replace(_compiled_job(3), configs=[{"block_size_x": 1, "block_size_y": 1}])  # the baseline's
    try:
        tuner.prepare(job.spec, "pycuda", job.source)
        deadline = time.monotonic() + 300
        while (tuner.compiles is None or tuner.compiles.compiled < 3) and time.monotonic() < deadline:
            time.sleep(0.05)  # the baseline and the sweep's first configurations
        pool = tuner.compiles
        assert pool is not None and pool.compiled == 3
        _run(tuner, job, timeout_s=300)
        assert tuner.compiles is pool and pool.compiled == 3  # the run compiled nothing itself
        assert [r.key for r in runs] == ["1,1"] and runs[0].binary[:4] == b"\x7fELF"
        many = _compiled_job(40)
        tuner.prepare(dict(many.spec, compiler_options=["-O3"]), "pycuda", many.source)  # a new pool, busy
        while not (busy := any(n in ("nvcc", "cicc", "ptxas") for n in _descendants())) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert busy
    finally:
        tuner.close()
    assert tuner.compiles is None
    assert not [n for n in _descendants() if n in ("nvcc", "cicc", "ptxas", "gcc", "cc1plus")]


def test_no_pool_for_a_replay_or_an_unprobed_gpu():
    tuner = tuner_on(fake_device("gpu0", answer=_answer))
    spec = spec_from_plain(_wide(2).spec)
    assert tuner.compile_pool(spec, "pycuda") is None  # no architecture known
    tuner.arch = "sm_90"
    assert tuner.compile_pool(spec, "sim") is None
    got, _ = _run(tuner, _wide(2))
    assert len(got) == 2 and tuner.compiles is None


def test_prefetch_off_makes_no_pool_and_the_runs_carry_no_binary(monkeypatch):
    """KT_TUI_PREFETCH=0 (README; benchmarks/harness.py's leg without compiling ahead): the device
    workers compile every configuration, and a check or profile gets no binaries."""
    monkeypatch.setenv("KT_TUI_PREFETCH", "0")
    runs: list = []
    tuner = _sm90_tuner(fake_device("gpu0", answer=_answer, runs=runs))
    job = _compiled_job(3)
    spec = spec_from_plain(job.spec)
    try:
        tuner.prepare(job.spec, "pycuda", job.source)
        got, _ = _run(tuner, job)
        assert tuner.binaries([(spec, job.source, spec.baseline_params(), None)], "pycuda", 1) == []
        assert tuner.compiles is None
    finally:
        tuner.close()
    assert len(got) == 3 and len(runs) == 3 and all(r.binary is None for r in runs)


def test_a_remembered_probe_tells_the_tuner_which_gpu_to_compile_for(monkeypatch):
    from kt_tui.config import load_settings
    from kt_tui.engine import backend
    from kt_tui.front import session

    from ..conftest import EXAMPLES

    monkeypatch.setattr(backend, "choose_backend", lambda *a: backend.BackendChoice("pycuda", "H100", arch="sm_90"))
    tuner = Tuner()
    assert tuner.cc() is None
    session.pick_backend(load_settings({}), tuner, "matmul", "v", EXAMPLES / "matmul.cu")
    assert tuner.cc() == "90"
