"""A whole session on several GPU workers (issue 26 item 1), without a GPU: the workers and Ray start
while the session loads, the workers serve every run of the session, and a session's end ends them
in order; the compile pools' planning of the host's cores. The trace (KT_TUI_TRACE) says what happened when, and in which process."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from kt_tui.gpu import timeline
from kt_tui.gpu.device import compilers, prefetch
from kt_tui.gpu.device.sharedpool import ENV, Server, SharedPool, plan
from kt_tui.gpu.tuner import Tuner
from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli
from .scale_fakes import matmul_job


def marks(path) -> list[tuple[float, int, str]]:
    return timeline.read(str(path))


def first(found, step: str) -> int:
    return next(i for i, (_, _, s) in enumerate(found) if s.startswith(step))


def test_ray_joins_while_the_session_loads_and_its_actors_serve_every_run(tmp_path):
    pytest.importorskip("ray")
    trace = tmp_path / "trace"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RAY_", "KT_TUI_"))}
    env.update(
        KT_TUI_DB=str(tmp_path / "db"),
        KT_TUI_DATA_DIR=str(tmp_path / "data"),
        KT_TUI_CONFIG_DIR=str(tmp_path / "cfg"),
        KT_TUI_TRACE=str(trace),
        KT_TUI_SIM_PACE="0.2",  # both actors have started before the sweep ends
        PYTHONPATH=os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
        ),  # kept: deps may be there
    )
    argv = ["run", str(EXAMPLES / "matmul.cu"), "--auto", "--json", "--backend", "sim", "--ray", "local"]
    proc = subprocess.run(
        [sys.executable, "-m", "kt_tui", *argv, "--gpus", "2", "--search", "brute_force"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=ROOT,
    )
    out = json.loads(proc.stdout)  # one JSON document: nothing of Ray's on stdout
    assert proc.returncode == 0 and out["state"] == "finished" and out["results"] == 17
    found = marks(trace)
    steps = [s for _, _, s in found]
    # the session did not wait for Ray to pick its backend: Ray was joined on a thread meanwhile
    assert first(found, "main: backend chosen") < first(found, "main: pool connected")
    # the same two actors ran the baseline, the sweep and the re-measure of its 5 fastest
    jobs = [pid for _, pid, s in found if s.startswith("worker: loaded ")]
    assert len(jobs) == 4 and len(set(jobs)) == 2  # baseline (one), the sweep (both), the re-measure (one)
    # each actor loaded the worker's modules (and kernel_tuner) before its first job came
    for pid in set(jobs):
        own = [s for _, p, s in found if p == pid]
        assert own.index("worker: imports done") < next(
            i for i, s in enumerate(own) if s.startswith("worker: loaded ")
        ), own
    # each actor ended its job thread after its last job and before the app let it go
    closed = first(found, "main: worker closed")
    for pid in set(jobs):
        ended = [i for i, (_, p, s) in enumerate(found) if p == pid and s == "worker: jobs ended"]
        last = max(i for i, (_, p, _s) in enumerate(found) if p == pid and _s != "worker: jobs ended")
        assert len(ended) == 1 and last < ended[0] < closed, steps
    assert "Token authentication" not in proc.stderr and "SIGTERM handler" not in proc.stderr


def test_local_gpus_start_with_the_session(capsys, hermetic, monkeypatch):
    trace = hermetic / "trace"
    monkeypatch.setenv("KT_TUI_TRACE", str(trace))
    argv = ["run", EXAMPLES / "matmul.cu", "--auto", "--json", "--backend", "sim", "--gpus", "2"]
    code, out = run_cli(capsys, *argv, "--search", "brute_force")
    assert code == 0 and out["results"] == 17
    found = marks(trace)
    baseline = first(found, "main: first result baseline")
    assert [s for _, _, s in found[:baseline]].count("main: worker spawned") == 2  # both up before the baseline


AFFINITY_AND_TIMES = (
    "import os, sys, time; a = time.time(); time.sleep(0.3); print(sorted(os.sched_getaffinity(0)), a, time.time())"
)


def test_one_pool_compiles_off_the_kept_cores_at_most_its_size_at_once(monkeypatch):
    monkeypatch.setenv("KT_TUI_PREFETCH_WORKERS", "3")
    assert plan(2, list(range(16))).size == 3  # the user's size for it, whatever the cores
    monkeypatch.delenv("KT_TUI_PREFETCH_WORKERS")
    numbers = plan(2, list(range(16)))
    assert (numbers.size, numbers.kept, numbers.depth) == (14, [0, 1], 56)
    assert "one pool of 14 compiles on cores 2-15 (16 cores here, 2 kept for the 2 GPU workers: 0-1)" in (
        numbers.describe()
    )
    assert plan(8, list(range(4))).cores == [3]  # a core is always left to compile on
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        pytest.skip("one core: nothing to keep apart")
    server = Server(plan(1, cores[:2]))  # one core kept for the GPU worker, one compiles
    try:
        assert server.wait()
        monkeypatch.setenv(ENV, server.env()[ENV])
        a, b = compilers.thread_pool(), compilers.thread_pool()  # two GPU workers' pools
        assert isinstance(a, SharedPool) and isinstance(b, SharedPool)
        cmd = [sys.executable, "-c", AFFINITY_AND_TIMES]
        futures = [p.submit(subprocess.check_output, [*cmd, str(i)]) for i, p in enumerate((a, b, a, b))]  # 4 asks
        runs = [f.result(timeout=60).decode().rsplit(" ", 2) for f in futures]
        a.shutdown()
        b.shutdown()
        with compilers.process_pool(1) as own:  # cupy's compiles, in processes of a worker's own
            assert own.submit(os.sched_getaffinity, 0).result(timeout=60) == {cores[1]}
    finally:
        server.close()
    assert {r[0] for r in runs} == {str([cores[1]])}  # the compiler's children run on the compile core only
    spans = sorted((float(r[1]), float(r[2])) for r in runs)
    assert all(later[0] >= earlier[1] for earlier, later in zip(spans, spans[1:]))  # one at a time: its size


def test_one_gpu_compiles_on_all_cores_but_its_own_and_its_compilers_keep_off_that_core(monkeypatch):
    """With no compile server (one GPU), a worker's own pool is planned as the server's: every core
    but one compiles (it was 16 at most), and nvcc, started from the pool's threads, runs there."""
    from kt_tui.gpu.device.sharedpool import AHEAD, WINDOW, depth, own_plan

    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.delenv("KT_TUI_PREFETCH_WORKERS", raising=False)
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        pytest.skip("one core: nothing to keep apart")
    mine = own_plan()
    assert (mine.kept, mine.cores, mine.size) == (cores[:1], cores[1:], len(cores) - 1)
    assert depth() == max(WINDOW, AHEAD * mine.size)
    pool = compilers.thread_pool()
    try:
        assert isinstance(pool, ThreadPoolExecutor) and pool._max_workers == len(cores) - 1
        cmd = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
        assert pool.submit(subprocess.check_output, cmd).result(timeout=60).decode().strip() == str(cores[1:])
    finally:
        pool.shutdown()


@pytest.fixture
def gpu_cluster(tmp_path, monkeypatch):
    """A local Ray cluster that says it has two GPUs (a replay never touches them)."""
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        ray.shutdown()
    monkeypatch.setenv("KT_TUI_TRACE", str(tmp_path / "trace"))  # the actors get kt-tui's switches
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.05")
    ray.init(num_gpus=2, num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def test_gpu_actors_serve_every_run_of_a_session_and_end_in_order(gpu_cluster, tmp_path):
    def actors() -> list[tuple[str, int]]:
        where = gpu_cluster.get([w.proc.actor.where.remote() for w in pool.workers])
        return [(w.proc.actor._actor_id.hex(), at["pid"]) for w, at in zip(pool.workers, where)]

    pool = Tuner(gpus=2, via="ray")
    try:
        pool._ensure(1)  # as the session starts them: one GPU each
        started = actors()
        for run in ("baseline", "sweep:1"):  # a replay on them, then another run of the session
            got = {}
            pool.run(
                dataclasses.replace(matmul_job(), run_id=run),
                lambda k, p, got=got: got.setdefault(p.key, p) if k == "result" else None,
                30,
            )
            assert len(got) == 17 and actors() == started
            assert {r.worker for r in got.values()} == {w.label for w in pool.workers}
        pool.request_stop()  # a stop in flight as the session ends
    finally:
        pool.close()
    found = marks(tmp_path / "trace")
    for _, pid in started:
        own = [s for _, p, s in found if p == pid]
        assert own[-1] == "worker: jobs ended" and own.count("worker: jobs ended") == 1


def test_the_gpu_waits_on_compiles_are_marked_in_the_trace(tmp_path, monkeypatch):
    monkeypatch.setenv("KT_TUI_TRACE", str(tmp_path / "trace"))

    class FakeBackend:
        def compile(self, instance):
            return "compiled the usual way"

    class FakeCompiler:
        def __init__(self, backend):
            self.backend = backend

        def pool(self):
            return ThreadPoolExecutor(1)

        def load(self, done, instance):
            return done

    monkeypatch.setitem(prefetch.COMPILERS, "FakeBackend", FakeCompiler)
    ahead = prefetch.Prefetcher(SimpleNamespace(dev=SimpleNamespace(dev=FakeBackend())))
    ahead.ahead["slow"] = ahead.pool.submit(lambda: (time.sleep(0.2), "from the pool")[1])
    assert ahead.compile(prefetch.Instance("k", "slow")) == "from the pool"
    assert ahead.compile(prefetch.Instance("k", "other")) == "compiled the usual way"
    ahead.close()
    steps = [s for _, _, s in marks(tmp_path / "trace")]
    assert len([s for s in steps if s.startswith("worker: waited ") and s.endswith(" s on compile")]) == 1
    waits = [s for s in steps if s.startswith("worker: compile waits ")]
    assert len(waits) == 1 and "over 2 configurations (0 failed ahead, 1 not ahead), " in waits[0]
    assert float(waits[0].split()[3]) >= 0.1


def test_a_cluster_not_there_is_one_line_before_a_session_is_made(capsys, hermetic, monkeypatch):
    ray = pytest.importorskip("ray")

    def refuse(**kwargs):
        raise ConnectionError(f"Failed to connect to Ray cluster at {kwargs['address']}")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    argv = ["run", EXAMPLES / "matmul.cu", "--auto", "--json", "--backend", "sim", "--ray", "10.9.9.9:6379"]
    code = __import__("kt_tui.cli").cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    out = json.loads(captured.out[captured.out.index("{") :])
    assert code == 2 and out["session"] is None and "cannot start or join the Ray cluster" in out["error"]
    assert [line for line in captured.err.splitlines() if "Ray cluster" in line] == [f"kt-tui: {out['error']}"]
    assert not (hermetic / "sessions.db").exists() or not Store(hermetic / "sessions.db").sessions()


def test_an_ended_actor_parks_its_job_thread_for_ray_kill(monkeypatch):
    """pycuda aborts the process when a thread ends with its context on the stack (SIGABRT in
    ~context_stack: one "Worker unexpectedly exits" per actor at each session's end on the 2-GPU
    host): the job thread is parked, never ended, and the actor is then killed by ray.kill."""
    import queue
    import threading

    from kt_tui.gpu.device import rayactor

    monkeypatch.setattr(rayactor.Actor, "_warm", lambda self: None)
    actor = rayactor.Actor(queue.Queue())
    assert actor.end(5)
    thread = next(t for t in threading.enumerate() if t.name == "kt-tui-jobs")
    thread.join(0.5)
    assert thread.is_alive()
