"""Several device workers pull configurations from one queue (gpu/runner.py QueueRunner): a free
device takes the next one, nothing is dealt or stopped to rebalance, and nothing is lost, measured
twice or over budget: with stand-in devices, with worker processes replaying a recorded cache
(a crash among them), and with the actors of a local Ray cluster of CPU-only workers."""

from __future__ import annotations

import threading
import time

import pytest

from kt_tui.gpu.devices import LocalDevice
from kt_tui.gpu.simcache import read_cache
from kt_tui.gpu.tuner import Tuner

from ..helpers import fake_device, tuner_on
from .scale_fakes import CACHE, matmul_job


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
