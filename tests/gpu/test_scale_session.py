"""A whole session on several GPU workers (issue 26 item 1), without a GPU: the workers and Ray start
while the session loads, the workers serve every run of the session, and a session's end ends them
in order. The trace (KT_TUI_TRACE) says what happened when, and in which process."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from kt_tui.gpu import timeline
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
