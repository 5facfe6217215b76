"""Several GPU workers in one session (--gpus, --ray): one queue, the store, stop, crashes, hangs.

Without a GPU the workers are CPU-only Ray actors replaying the recorded matmul cache (kernel_tuner
refuses its `parallel` runner together with simulation mode, so each actor runs kt-tui's worker code).
"""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from kt_tui.config import load_settings
from kt_tui.front.session import load_kernel_spec, read_kernel_file
from kt_tui.gpu.protocol import TuneJob
from kt_tui.gpu.tuner import ScaleError, Tuner
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..helpers import fake_device, run_cli, tuner_on
from .scale_fakes import matmul_job, run_matmul_on_two


# -- on a local Ray cluster (CPU-only actors) -----------------------------------------------------
@pytest.fixture(scope="module")
def ray():
    ray = pytest.importorskip("ray")
    os.environ["OPENAI_API_KEY"] = "sk-never-sent"  # the cluster starts while a key is set
    try:
        Tuner(gpus=1, via="ray")._connect()
    finally:
        del os.environ["OPENAI_API_KEY"]
    yield ray
    ray.shutdown()


def test_two_workers_stream_into_one_table_with_a_worker_column(ray, capsys, hermetic, monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.2")  # both have started before the sweep ends
    code, out = run_matmul_on_two(capsys)
    assert code == 0 and out["state"] == "finished" and out["results"] == 17
    rows = Store(hermetic / "sessions.db").results(out["session"])
    assert len({r.key for r in rows}) == 17 and all(r.status == "ok" for r in rows)
    assert len({r.worker for r in rows if r.run == "sweep:1"}) == 2
    again = [r for r in rows if r.run == "sweep:1:remeasure"]  # the 5 fastest, timed again on one GPU
    assert len(again) == 5 and len({r.worker for r in again}) == 1
    one, single = run_cli(
        capsys, "run", EXAMPLES / "matmul.cu", "--auto", "--json", "--backend", "sim", "--search", "brute_force"
    )
    assert one == 0 and single["best"] == out["best"]


def test_stop_ends_every_worker_after_its_configuration(ray, monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.3")
    pool = Tuner(gpus=2, via="ray")
    got = []

    def on_event(kind, payload):
        if kind == "result":
            got.append(payload)
            pool.request_stop()

    info = pool.run(matmul_job(), on_event, 30)
    pool.close()
    assert info["stopped"] and 1 <= len(got) <= 4 and len({r.key for r in got}) == len(got)


def test_a_crash_and_a_hang_cost_one_configuration_each(ray, monkeypatch):
    monkeypatch.setenv("KT_TUI_FAULT", "crash:32,8")
    pool = Tuner(gpus=2, via="ray")
    got = {}
    pool.run(matmul_job(), lambda k, p: got.setdefault(p.key, p) if k == "result" else None, 30)
    pool.close()
    assert len(got) == 17 and got["32,8"].status == "crash"
    assert [k for k, r in got.items() if r.status != "ok"] == ["32,8"]
    monkeypatch.setenv("KT_TUI_FAULT", "hang:64,2")
    pool, got = Tuner(gpus=2, via="ray"), {}
    pool.run(matmul_job(), lambda k, p: got.setdefault(p.key, p) if k == "result" else None, 2)
    assert len(got) == 17 and got["64,2"].status == "timeout"
    hung = got["64,2"].worker
    assert [w.restarts for w in pool.workers if w.label == hung] == [1]
    assert [w.restarts for w in pool.workers if w.label != hung] == [0]  # the other worker was not touched
    pool.close()


def test_the_workers_never_see_the_api_key(ray, monkeypatch):
    from kt_tui.gpu.raydevice import _actor_env

    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-sent")
    monkeypatch.setenv("KT_TUI_API_TOKEN", "never-sent-either")
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0")
    assert _actor_env() == {"KT_TUI_SIM_PACE": "0"} or set(_actor_env()) <= {
        "KT_TUI_SIM_PACE",
        "KT_TUI_FAULT",
        "KT_TUI_PREFETCH",
        "KT_TUI_PROFILE",
        "KT_TUI_NCU",  # tests/conftest.py: no ncu, no peaks in the suite
        "KT_TUI_PEAKS",
    }
    seen = ray.get(ray.remote(num_cpus=0)(lambda: sorted(os.environ)).remote())
    assert "OPENAI_API_KEY" not in seen and "KT_TUI_API_TOKEN" not in seen


async def test_the_ui_table_shows_the_worker_column_only_with_several_workers(ray, monkeypatch):
    from kt_tui.front.commands import tui_app
    from kt_tui.ui.widgets import ResultsTable

    from ..ui.test_ui import SIZE, gate_key, new_app, wait_for

    # one queue: a worker up first takes every configuration of an unpaced replay before the other starts
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.2")
    app = new_app(EXAMPLES / "matmul.cu", gpus="2", search="brute_force")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await wait_for(pilot, lambda: gate_key(screen) is not None, timeout=120)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.state == "finished", timeout=120)
        table = screen.query_one(ResultsTable)
        assert "worker" in [c.value for c in table.columns]
        shown = {str(table.get_cell(k, "worker")) for k in table.rows}
        assert len(shown - {"-"}) == 2
        sid = screen.sid
        await pilot.press("q")
    settings = load_settings({})
    app = tui_app(settings, Store(settings.db), resume=sid)  # no --gpus now: the stored rows say who measured them
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.screen.query_one(ResultsTable).rows) == 17, timeout=120)
        assert "worker" in [c.value for c in app.screen.query_one(ResultsTable).columns]
        await pilot.press("q")
    app = new_app(EXAMPLES / "matmul.cu")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: gate_key(app.screen) is not None)
        assert "worker" not in [c.value for c in app.screen.query_one(ResultsTable).columns]
        await pilot.press("q")


def test_the_run_writes_one_cachefile_in_the_app_whichever_device_measured(tmp_path):
    from kt_tui.gpu.simcache import read_cache

    main = str(tmp_path / "run.json")
    tuner = tuner_on(fake_device("a:gpu0", "H200"), fake_device("a:gpu1", "H200"))
    got = []
    tuner.run(matmul_job(backend="pycuda", cachefile=main), lambda k, p: got.append(p) if k == "result" else None, 10)
    cache = read_cache(main)
    assert sorted(cache["cache"]) == sorted(r.key for r in got) and len(got) == 17
    assert {r.worker for r in got} == {"a:gpu0", "a:gpu1"} and cache["device_name"] == "H200"
    assert not list(tmp_path.glob("run.w*.json"))  # no file per worker


def test_a_cluster_that_is_not_there_is_a_clear_message(monkeypatch):
    ray = pytest.importorskip("ray")

    def refuse(**kwargs):
        raise ConnectionError(f"Failed to connect to Ray cluster at {kwargs['address']}")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", refuse)
    with pytest.raises(ScaleError, match="--ray 10.9.9.9:6379: cannot start or join the Ray cluster"):
        Tuner(gpus=2, address="10.9.9.9:6379").probe()


def test_auto_without_a_gpu_in_the_cluster_replays_on_the_workers(ray, capsys, hermetic, monkeypatch):
    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.2")
    code, out = run_cli(
        capsys, "run", EXAMPLES / "matmul.cu", "--auto", "--json", "--gpus", "2", "--search", "brute_force"
    )
    assert code == 0 and out["backend"] == "sim" and "No working CUDA backend" in out["note"]
    rows = Store(hermetic / "sessions.db").results(out["session"])
    assert len(rows) == 17 and len({r.worker for r in rows}) == 2


def test_an_unbudgeted_kt_search_models_then_runs_the_rest_on_every_worker(ray):
    from collections import Counter

    kf = read_kernel_file(EXAMPLES.parent / "benchmarks" / "spaces" / "matmul_tiled.cu")
    _, spec = load_kernel_spec(kf, None, None)
    cache = next((EXAMPLES.parent / "benchmarks" / "spaces" / "recorded").glob("matmul_tiled-*.json"))
    job = TuneJob(run_id="kt", source=kf.source, spec=spec.to_dict(), backend="sim", sim_cache=str(cache), search="kt")
    pool, seen = Tuner(gpus=2, via="ray"), []
    info = pool.run(job, lambda k, p: seen.append(p) if k == "result" else None, 30)
    pool.close()
    counts = Counter(r.key for r in seen)
    assert len(counts) == 767 and max(counts.values()) == 1 and not info["stopped"]
    assert len({r.worker for r in seen[60:]}) == 2  # the rest, in order, on both


def test_the_headless_progress_names_the_worker():
    import io

    from kt_tui.engine.events import event_from
    from kt_tui.front.headless import progress_printer

    out = io.StringIO()
    show = progress_printer(out)
    result = {"key": "32,8", "time_ms": 0.5, "status": "ok"}
    show(event_from("result", {"result": dict(result, worker="node2:gpu1"), "best": False}))
    show(event_from("result", {"result": result, "best": False}))
    _header, first, second = out.getvalue().splitlines()
    assert first.endswith("ok  (node2:gpu1)") and second.endswith("ok")


def test_quitting_during_a_run_interrupts_every_worker(ray, monkeypatch):
    from kt_tui.gpu.tuner import WorkerClosed

    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.3")
    pool = Tuner(gpus=2, via="ray")

    def on_event(kind, payload):
        if kind == "result":
            threading.Thread(target=pool.shutdown).start()  # what the UI's quit does, from another thread

    with pytest.raises(WorkerClosed):
        pool.run(matmul_job(), on_event, 30)
    deadline = time.monotonic() + 10  # the run ends as soon as it sees the quit; the kills land meanwhile
    while any(w.alive() for w in pool.workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(not w.alive() for w in pool.workers)


def test_ray_lines_stay_out_of_the_json_on_stdout(tmp_path):
    """A Ray cluster started by the session: its processes' output goes to the session's log."""
    import json
    import subprocess

    pytest.importorskip("ray")
    env = dict(
        os.environ,
        KT_TUI_DB=str(tmp_path / "s.db"),
        KT_TUI_DATA_DIR=str(tmp_path / "data"),
        KT_TUI_CONFIG_DIR=str(tmp_path / "cfg"),
        RAY_ADDRESS="",
    )
    env.pop("OPENAI_API_KEY", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kt_tui",
            "run",
            str(EXAMPLES / "matmul.cu"),
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--ray",
            "local",
            "--gpus",
            "2",
            "--search",
            "brute_force",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )
    out = json.loads(proc.stdout)  # one JSON document, nothing of Ray's before or after it
    assert proc.returncode == 0 and out["results"] == 17
    assert "Ray" not in proc.stderr.replace("Ray cluster", "")


def test_a_gpu_uuid_with_a_zero_byte_does_not_break_the_cupy_backend():
    """cupy cuts a UUID at its first zero byte; kernel_tuner's cupy backend needs all 16 bytes."""
    import uuid

    from kt_tui.gpu.device.lang import padded_uuid

    cut = bytes.fromhex("5a1f00")[:2]  # what cupy returns for a UUID that starts 5a 1f 00 ...
    with pytest.raises(ValueError, match="16-char"):
        uuid.UUID(bytes=cut)
    props = padded_uuid(lambda device: {"name": b"NVIDIA H100 80GB HBM3", "uuid": cut})(0)
    assert str(uuid.UUID(bytes=props["uuid"])).startswith("5a1f0000-") and props["name"].startswith(b"NVIDIA")
    whole = bytes(range(1, 17))
    assert padded_uuid(lambda device: {"uuid": whole})(0)["uuid"] == whole


def test_an_actor_runs_every_job_on_one_thread(monkeypatch):
    """pycuda aborts a process whose thread ends with a CUDA context on its stack: one job thread."""
    import time as _time

    from kt_tui.gpu.device import rayactor

    threads = []
    monkeypatch.setattr(rayactor.Actor, "_warm", lambda self: None)
    monkeypatch.setattr(rayactor.Actor, "_run", lambda self, job: threads.append(threading.get_ident()))
    actor = rayactor.Actor(out=None)
    for job in range(3):
        actor.submit(job)
    deadline = _time.monotonic() + 5
    while len(threads) < 3 and _time.monotonic() < deadline:
        _time.sleep(0.01)
    assert len(threads) == 3 and len(set(threads)) == 1 and threads[0] != threading.get_ident()


def test_the_clusters_error_messages_go_to_the_log(tmp_path, monkeypatch):
    ray_worker = pytest.importorskip("ray._private.worker")
    from kt_tui.gpu import raydevice

    monkeypatch.setattr(ray_worker, "print_to_stdstream", ray_worker.print_to_stdstream)  # restored after
    raydevice._errors_to(str(tmp_path / "log"))
    ray_worker.print_to_stdstream(
        {"lines": ["A worker died or was killed"], "pid": "raylet", "is_err": False}, ignore_prefix=False
    )
    assert "A worker died or was killed" in (tmp_path / "log").read_text()


def test_an_actor_goes_on_after_a_job_it_does_not_run_or_one_that_breaks(monkeypatch):
    """A PrepareJob (local workers only) or a job that raises must not end the actor's job thread."""
    import time as _time

    from kt_tui.gpu.device import rayactor
    from kt_tui.gpu.protocol import PrepareJob, ProbeJob

    sent = []

    class Out:
        def put(self, message):
            sent.append(message)

    monkeypatch.setattr(rayactor.Actor, "_warm", lambda self: None)
    actor = rayactor.Actor(out=Out())
    actor.submit(PrepareJob(spec={}, backend="pycuda"))
    actor.submit(object())  # not a job at all
    actor.submit(ProbeJob(backends=()))
    deadline = _time.monotonic() + 30
    while not any(m[0] == "probe" for m in sent) and _time.monotonic() < deadline:
        _time.sleep(0.05)
    assert [m[0] for m in sent] == ["probe"]


def test_an_unbudgeted_kt_search_of_a_small_space_runs_on_every_worker_at_once():
    pool = tuner_on(fake_device("a:gpu0", "H200", pace=0.01), fake_device("a:gpu1", "H200", pace=0.01))
    got = []
    info = pool.run(
        matmul_job(backend="pycuda", search="kt"), lambda k, p: got.append(p) if k == "result" else None, 10
    )
    assert len(got) == 17 and len({r.key for r in got}) == 17 and not info["stopped"]
    assert {r.worker for r in got} == {"a:gpu0", "a:gpu1"}  # before: all 17 picked by the model on one


def test_the_backend_probe_runs_under_the_same_cuda_lang_as_the_jobs(monkeypatch):
    """An H100 whose UUID holds a zero byte failed the cupy probe while cupy jobs would have run."""
    import contextlib
    import sys
    import types

    from kt_tui.gpu.device import lang, main

    seen = []

    @contextlib.contextmanager
    def spy(backend):
        seen.append(backend)
        yield "CUDA"

    fake = types.ModuleType("kernel_tuner")

    def run_kernel(name, src, size, args, params, lang=None, quiet=True):
        import numpy as np

        seen.append(lang)
        return [np.arange(32, dtype=np.float32)]

    fake.run_kernel = run_kernel
    monkeypatch.setattr(lang, "cuda_lang", spy)
    monkeypatch.setattr("kt_tui.gpu.ktimport.load", lambda: None)
    monkeypatch.setitem(sys.modules, "kernel_tuner", fake)
    monkeypatch.setattr(main, "_device_name", lambda name: "stand-in GPU")
    assert main._try_backend("cupy") == "stand-in GPU"
    assert seen == ["cupy", "CUDA"]  # before: lang="cupy" straight to kernel_tuner, no UUID padding


def test_a_session_over_several_gpus_tests_its_check_too(hermetic, monkeypatch):
    """--gpus N / --ray: the original's check is tested from the app's host beside the workers
    (it was "not tested" for pools), the same function as one worker's."""
    from kt_tui.engine.core import Engine
    from kt_tui.engine.events import Decision
    from kt_tui.engine.strength import start_check
    from kt_tui.gpu import checkrun

    from ..engine.test_outcomes import real_session

    called = []
    monkeypatch.setattr(checkrun, "test_check", lambda *a, **k: called.append(a[2]) or {"state": "ok", "fixes": []})
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    engine = Engine(store, sid, Tuner(gpus=2), choice, lambda g: Decision("approve"))
    start_check(engine)
    assert engine.check_in_flight is not None and engine.check_in_flight.result()["state"] == "ok"
    assert called == ["cupy"]
