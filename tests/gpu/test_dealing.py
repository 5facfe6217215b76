"""A split run dealt again while it goes (gpu/dealing.py): a worker that is done takes half of the
busiest one's rest, the check's GPU starts late, and nothing is lost, measured twice or over budget."""

from __future__ import annotations

import threading
import time

from kt_tui.gpu.pool import GpuPool

from .scale_fakes import matmul_job


class Paced:
    """Stands in for a GPU worker: one configuration every `pace` seconds; stops when asked, after
    the configuration it is on (a stop asked between two jobs is lost, as a GpuWorker's is)."""

    def __init__(self, label: str, pace: float):
        self.label, self.pace, self.num_gpus, self.restarts = label, pace, 1, 0
        self.stop = threading.Event()
        self.held = threading.Event()
        self.jobs: list[int] = []
        self.times: list[float] = []
        self.stops: list[float] = []

    def request_stop(self) -> None:
        self.stops.append(time.monotonic())
        self.stop.set()
        self.held.clear()  # as a GpuWorker: a paused run stops at once

    def pause(self, on: bool) -> None:
        (self.held.set if on else self.held.clear)()

    def run(self, job, on_event, timeout_s):
        self.stop.clear()
        self.jobs.append(len(job.configs))
        names = list(job.spec["tune_params"])
        done = 0
        for c in job.configs:
            if self.stop.is_set() or (job.max_configs and done >= job.max_configs):
                break
            while self.held.is_set():
                time.sleep(0.001)
            time.sleep(self.pace)
            self.times.append(time.monotonic())
            key = ",".join(str(c[n]) for n in names)
            on_event("result", {"key": key, "params": c, "time_ms": 1.0, "status": "ok"})
            done += 1
        return {"device": "H100", "stopped": self.stop.is_set(), "evaluated": done}


def _space(n: int) -> list[dict]:
    return [{"block_size_x": x, "block_size_y": y} for x in range(1, n + 1) for y in (1,)]


def _run(pool: GpuPool, job) -> tuple[list, dict]:
    got: list = []
    info = pool.run(job, lambda k, p: got.append(p) if k == "result" else None, 10)
    return got, info


def test_a_worker_that_is_done_takes_half_of_the_busiest_ones_rest():
    pool = GpuPool(2)
    fast, slow = Paced("gpu0", 0.0), Paced("gpu1", 0.03)
    pool.workers = [fast, slow]
    got, info = _run(pool, matmul_job(configs=_space(80)))
    keys = [r.key for r in got]
    assert len(keys) == len(set(keys)) == 80 and not info["stopped"]
    assert len(slow.jobs) >= 2 and len(fast.jobs) >= 2  # the slow one kept going with half of its rest
    assert sum(r.worker == "gpu0" for r in got) > 50


def test_the_checks_gpu_measures_nothing_while_the_test_runs_then_takes_its_share():
    pool = GpuPool(2)
    first, checked = Paced("gpu0", 0.005), Paced("gpu1", 0.005)
    pool.workers = [first, checked]
    pool.check_gpu = lambda: "gpu1"
    ended: list[float] = []

    def test() -> None:
        with pool.checking:
            time.sleep(0.25)
            ended.append(time.monotonic())

    t = threading.Thread(target=test)
    t.start()
    while not pool.checking.busy():
        time.sleep(0.001)
    got, info = _run(pool, matmul_job(configs=_space(120)))
    t.join()
    keys = [r.key for r in got]
    assert len(keys) == len(set(keys)) == 120 and not info["stopped"]
    assert checked.times and min(checked.times) > ended[0]  # nothing timed while the test ran beside
    assert sum(r.worker == "gpu1" for r in got) >= 8


def test_a_budget_holds_over_every_job_a_share_becomes():
    pool = GpuPool(2)
    pool.workers = [Paced("gpu0", 0.0), Paced("gpu1", 0.01)]
    got, _ = _run(pool, matmul_job(configs=_space(200), max_configs=90))
    keys = [r.key for r in got]
    assert len(keys) == len(set(keys)) == 90


def test_a_stop_ends_the_run_and_nothing_is_dealt_after_it():
    pool = GpuPool(2)
    workers = [Paced("gpu0", 0.002), Paced("gpu1", 0.01)]
    pool.workers = workers
    threading.Timer(0.1, pool.request_stop).start()
    got, info = _run(pool, matmul_job(configs=_space(400)))
    assert info["stopped"] and len(got) < 200
    assert len({r.key for r in got}) == len(got)


def test_no_share_is_taken_from_a_paused_gpu():
    pool = GpuPool(2)
    fast, slow = Paced("gpu0", 0.0), Paced("gpu1", 0.02)
    pool.workers = [fast, slow]
    marks: dict[str, float] = {}

    def pause_then_go() -> None:
        pool.pause(True)
        marks["paused"] = time.monotonic()
        time.sleep(0.6)
        marks["resumed"] = time.monotonic()
        pool.pause(False)

    threading.Timer(0.05, pause_then_go).start()
    got, info = _run(pool, matmul_job(configs=_space(120)))
    assert len({r.key for r in got}) == len(got) == 120 and not info["stopped"]
    assert not [t for t in slow.stops if marks["paused"] < t < marks["resumed"]]  # the pause held
    assert slow.stops and len(fast.jobs) >= 2  # and afterwards the run was dealt again


def test_the_checks_gpu_starts_once_the_test_has_left_it_not_once_the_test_has_judged(monkeypatch):
    """The check's child judges its arrays after its runs (seconds of numpy for a large problem):
    the GPU it ran on measures meanwhile."""
    from kt_tui.gpu import checkrun

    pool = GpuPool(2)
    first, checked = Paced("gpu0", 0.005), Paced("gpu1", 0.005)
    first.env, checked.env = {"CUDA_VISIBLE_DEVICES": "0"}, {"CUDA_VISIBLE_DEVICES": "1"}
    pool.workers = [first, checked]
    pool.check_gpu = lambda: "gpu1"
    judged: list[float] = []

    def test_check(source, spec, backend, timeout_s, device, gpu_free):
        time.sleep(0.1)  # the sanitizer and the runs
        gpu_free()
        time.sleep(0.5)  # the child judges
        judged.append(time.monotonic())
        return {"state": "ok"}

    monkeypatch.setattr(checkrun, "test_check", test_check)
    t = threading.Thread(target=pool.test_check, args=("src", {}, "cupy", 60))
    t.start()
    deadline = time.monotonic() + 5
    while not pool.checking.busy() and time.monotonic() < deadline:
        time.sleep(0.001)
    got, _ = _run(pool, matmul_job(configs=_space(200)))
    t.join()
    assert len({r.key for r in got}) == 200 and not pool.checking.busy()
    assert checked.times and min(checked.times) < judged[0]
