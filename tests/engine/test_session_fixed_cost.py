"""The fixed cost of a session (issue 14): a replay generates no inputs and needs no compile check of
the very version it replays, a GPU job reuses the spec's inputs, the worker starts before the engine
loads, and a headless resume says where the session stands before any worker answers."""

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing

import numpy as np
import pytest

from kt_tui.engine import precheck, registry
from kt_tui.engine.backend import BackendChoice, choose_backend
from kt_tui.engine.known import in_space
from kt_tui.gpu import compile as comp
from kt_tui.gpu.device import prepare
from kt_tui.gpu.protocol import TuneJob
from kt_tui.gpu.simcache import read_cache
from kt_tui.gpu.timeline import read as read_trace
from kt_tui.gpu.tuner import Tuner
from kt_tui.kernel.spec import load_spec, version_ids
from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli, run_tune_job

VECTOR_CACHE = EXAMPLES / "recorded" / "vector_add-94d9d81671be4dab.json"
needs_nvcc = pytest.mark.skipif(comp.find_nvcc() is None, reason="nvcc not found")


def kt(*argv, env=None, **kw):
    return subprocess.run(
        [sys.executable, "-m", "kt_tui", *map(str, argv)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env or dict(os.environ),
        timeout=120,
        **kw,
    )


# -- the replay ------------------------------------------------------------------------------
def test_a_replay_makes_no_inputs_and_streams_the_recorded_times(monkeypatch):
    def never(*a, **k):
        raise AssertionError("a replay generated the inputs")

    monkeypatch.setattr(prepare, "make_args", never)
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    job = TuneJob(
        run_id="r",
        source=(EXAMPLES / "vector_add.cu").read_text(),
        spec=spec.to_dict(),
        backend="sim",
        sim_cache=str(VECTOR_CACHE),
        search="brute_force",
    )
    got = []
    run_tune_job(job, lambda kind, p: got.append(p) if kind == "result" else None)
    recorded = read_cache(VECTOR_CACHE)["cache"]
    assert {r.key: r.time_ms for r in got} == {k: e["time"] for k, e in recorded.items()}
    assert {r.source for r in got} == {"recorded"}


def test_a_gpu_jobs_inputs_are_made_once_per_spec_and_no_job_can_change_them(monkeypatch):
    made = []

    def make(spec):
        made.append(spec.sizes["n"])
        return [np.arange(4, dtype=np.float32), np.float32(2.0)]

    monkeypatch.setattr(prepare, "make_args", make)
    prepare._ARGS.clear()
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    n = spec.sizes["n"]
    first = prepare.job_args(spec, spec.to_dict())
    with pytest.raises(ValueError, match="read-only"):
        first[0][:] = -1  # what one job would do to its arrays fails loudly: the next one gets the same inputs
    second = prepare.job_args(spec, spec.to_dict())
    assert made == [n] and second[0].tolist() == [0, 1, 2, 3] and second[1] == 2.0
    assert second[0] is first[0]  # not copied for each job (512 MB took a quarter of a second)
    spec.sizes["n"] = 1000  # other sizes: made again
    prepare.job_args(spec, spec.to_dict())
    assert made == [n, 1000]


def test_recorded_caches_are_read_as_kernel_tuner_reads_them(tmp_path):
    from kernel_tuner.util import read_cache as kernel_tuners

    text = VECTOR_CACHE.read_text().strip()
    left_open = tmp_path / "open.json"  # as kernel_tuner leaves a cache it is still appending to
    left_open.write_text(text[:-3] + ",")
    for path in (VECTOR_CACHE, left_open):
        theirs = kernel_tuners(str(path), open_cache=False)
        assert read_cache(path) == theirs
    (tmp_path / "other.json").write_text('{"tune_params_keys": ["x"], "meta": {"x": {}}}')
    with pytest.raises(ValueError, match="not a kernel_tuner cachefile"):
        read_cache(tmp_path / "other.json")


def test_choosing_a_replay_loads_no_kernel_tuner_in_the_app():
    code = (
        "import sys; from kt_tui.front.commands import run_auto; from kt_tui.engine.backend import choose_backend; "
        f"c = choose_backend('sim', None, 'vector_add', ['94d9d81671be4dab'], [{str(EXAMPLES / 'recorded')!r}]); "
        "print(c.replays_version, 'kernel_tuner' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.split() == ["True", "False", "False"], out.stderr


def test_a_cache_says_whether_it_replays_this_very_version(tmp_path):
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    ids = version_ids((EXAMPLES / "vector_add.cu").read_text(), spec)
    assert choose_backend("sim", None, "vector_add", ids, [str(VECTOR_CACHE)]).replays_version
    # a cache given as a file is replayed whatever version it holds; this one holds another
    assert not choose_backend("sim", None, "vector_add", ["0123456789abcdef"], [str(VECTOR_CACHE)]).replays_version
    plain = tmp_path / "plain.json"  # kernel_tuner's own cache: no header says which version
    data = read_cache(VECTOR_CACHE)
    data.pop("kt_tui")
    plain.write_text(json.dumps(data))
    assert not choose_backend("sim", None, "vector_add", ids, [str(plain)]).replays_version


# -- the compile check -----------------------------------------------------------------------
def test_a_replay_of_this_very_version_is_not_compile_checked_and_says_so(monkeypatch):
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    checked = []
    monkeypatch.setattr(precheck, "compile_errors", lambda *a: checked.append(a[3]) or None)
    choice = precheck.checked_backend(
        lambda: BackendChoice("sim", "H200", replays_version=True), "src", spec, "v.cu", quick_pick=True
    )
    assert checked == [] and choice.note == "Compile check skipped: the recorded cache is of this very kernel version."
    # not this version's cache, or a GPU: the check runs and a compile error stops the session
    monkeypatch.setattr(precheck, "compile_errors", lambda *a: checked.append(a[3]) or "v.cu:3:1: error: oops")
    for pick, quick in (
        (lambda: BackendChoice("sim", "H200"), True),
        (lambda: BackendChoice("pycuda", "GPU", arch=comp.DEFAULT_ARCH), False),
    ):
        with pytest.raises(precheck.CompileError, match="does not compile"):
            precheck.checked_backend(pick, "src", spec, "v.cu", quick_pick=quick)
    assert checked == [comp.DEFAULT_ARCH, comp.DEFAULT_ARCH]


@needs_nvcc
def test_a_kernel_replayed_from_another_versions_cache_is_still_compile_checked(tmp_path, capsys):
    broken = tmp_path / "vector_add.cu"
    broken.write_text((EXAMPLES / "vector_add.cu").read_text().replace("c[i] =", "c[i] = oops +", 1))
    (tmp_path / "vector_add.cu.toml").write_text((EXAMPLES / "vector_add.cu.toml").read_text())
    code, out = run_cli(capsys, "run", broken, "--auto", "--json", "--backend", "sim", "--sim-cache", VECTOR_CACHE)
    assert code == 2 and "does not compile" in out["error"] and "oops" in out["error"]


def test_a_sim_session_of_the_recorded_version_says_its_check_was_skipped(capsys, hermetic):
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim")
    assert code == 0 and out["results"] == 6 and out["state"] == "finished"
    assert "Compile check skipped: the recorded cache is of this very kernel version." in out["note"]


# -- the worker --------------------------------------------------------------------------------
def test_in_space_keeps_the_stored_results_a_run_can_meet():
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    known = {"256": 1, "1024": 2, "48": 3, "256,1": 4, "": 5, **{str(10**6 + i): i for i in range(20)}}
    assert in_space(spec, known) == {"256": 1, "1024": 2}  # looked up by the space's keys
    assert in_space(spec, {"256": 1, "48": 3}) == {"256": 1}  # filtered key by key
    spec.tune_params = {}
    assert in_space(spec, {"": 5, "256": 1}) == {"": 5}


def test_a_worker_never_asked_for_anything_is_stopped_at_once_and_one_that_was_ends_cleanly(hermetic):
    idle = Tuner()
    idle.start()
    proc = idle.proc
    idle.close()  # it may still be importing kernel_tuner: it is killed, not waited for
    assert not proc.is_alive() and idle.proc is None
    used = Tuner(log_path=str(hermetic / "w.log"))
    assert used.probe(("nope",))["backend"] is None  # one job: close() asks it to end
    proc = used.proc
    used.close()
    assert proc.exitcode == 0


def test_a_builtin_strategy_is_found_without_reading_every_packages_entry_points(monkeypatch):
    def slow(**kw):
        raise AssertionError("entry points read")

    monkeypatch.setattr(registry, "entry_points", slow)
    from kt_tui.engine.strategies.sweep import sweep

    assert registry.get_strategy("sweep") is sweep
    with pytest.raises(AssertionError):
        registry.get_strategy("a-plugin")


def test_run_starts_the_gpu_worker_before_loading_the_engine_and_ends_cleanly(hermetic):
    trace, db = hermetic / "trace", hermetic / "s.db"
    out = kt(
        "run",
        EXAMPLES / "reduction.cu",
        "--auto",
        "--json",
        "--backend",
        "sim",
        "--db",
        db,
        env=dict(os.environ, KT_TUI_TRACE=str(trace)),
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)  # printed in full before the process ended
    assert summary["state"] == "finished" and summary["results"] == 25
    steps = [step for _, _, step in read_trace(trace)]
    assert steps.index("main: worker spawned") < steps.index("main: imports done") < steps.index("main: session ended")
    assert "worker: imports done" in steps and "main: first result baseline:ecd8e7051e842c20" in steps
    # the write-ahead log was folded into the database file: the file alone holds the session
    assert not db.with_name(db.name + "-wal").exists()
    with closing(sqlite3.connect(db)) as conn:  # and the at-exit handlers ran: the session's lock is gone
        assert conn.execute("SELECT count(*) FROM locks").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM results").fetchone()[0] == 25


# -- headless resume ---------------------------------------------------------------------------
def test_resume_says_where_the_session_stands_first_and_a_finished_one_needs_no_worker(hermetic):
    db, trace = hermetic / "s.db", hermetic / "trace"
    env = dict(os.environ, KT_TUI_TRACE=str(trace))
    made = kt(
        "run",
        EXAMPLES / "vector_add.cu",
        "--auto",
        "--json",
        "--backend",
        "sim",
        "--db",
        db,
        "--max-configs",
        "2",
        env=env,
    )
    sid = json.loads(made.stdout)["session"]
    store = Store(db)
    store.update_session(sid, state="stopped")
    with store.db.conn:  # as if the user had stopped it at the sweep's first gate
        store.db.conn.execute("UPDATE gates SET state = 'pending', decision = NULL WHERE session = ?", [sid])
        store.db.conn.execute("DELETE FROM runs WHERE session = ? AND id = 'sweep:1'", [sid])
    trace.unlink()
    again = kt("resume", sid, "--auto", "--json", "--db", db, env=env)
    assert again.returncode == 0, again.stderr
    first = again.stderr.splitlines()[0]
    assert first.startswith(f'session {sid} (sweep, vector_add): stopped at "Tune vector_add')
    assert "; 3 results, best 0.0799 ms (256)" in first
    assert "main: worker spawned" in [s for _, _, s in read_trace(trace)]
    trace.unlink()
    done = kt("resume", sid, "--auto", "--json", "--db", db, env=env)
    assert done.returncode == 0 and json.loads(done.stdout)["state"] == "finished"
    # the --max-configs 2 it was made with holds on resume (issue 23): 3 stored, 2 more
    assert done.stderr.startswith(f"session {sid} (sweep, vector_add): finished; 5 results, best 0.0799 ms (256)")
    assert [s for _, _, s in read_trace(trace) if s.startswith(("main: worker spawned", "worker:"))] == []


# -- on a GPU: the worker prepares while nvcc checks the kernel -------------------------------------
def test_the_worker_is_asked_to_prepare_once_a_gpu_is_picked_before_the_compile_check_ends(monkeypatch):
    from kt_tui.config import load_settings
    from kt_tui.front import session

    order = []

    class Gpu:
        def prepare(self, spec, backend, source=""):
            order.append(("prepare", spec["kernel"], backend))
            assert "__global__ void vector_add" in source  # its baseline starts compiling in the worker

    monkeypatch.setattr(session, "pick_backend", lambda *a, **k: BackendChoice("pycuda", "GPU", arch=comp.DEFAULT_ARCH))
    monkeypatch.setattr(precheck, "compile_errors", lambda *a: order.append(("checked", a[3])) or None)
    kf = session.read_kernel_file(EXAMPLES / "vector_add.cu")
    _, spec = session.load_kernel_spec(kf, None, None)
    choice = session.checked_choice(load_settings({}), Gpu(), kf, spec)
    assert choice.backend == "pycuda" and ("prepare", "vector_add", "pycuda") in order
    assert ("checked", comp.DEFAULT_ARCH) in order  # the check still ran, and blocked until it was done
    order.clear()
    monkeypatch.setattr(session, "pick_backend", lambda *a, **k: BackendChoice("sim", "H200"))
    session.checked_choice(load_settings({"backend": "sim"}), Gpu(), kf, spec)
    assert not [o for o in order if o[0] == "prepare"]  # a replay needs no inputs


def test_a_prepared_worker_has_the_inputs_its_first_job_needs(monkeypatch, worker_loop_once):
    from kt_tui.gpu.protocol import PrepareJob

    made = []
    monkeypatch.setattr(prepare, "make_args", lambda spec: made.append(1) or [np.zeros(3, np.float32)])
    prepare._ARGS.clear()
    spec = load_spec(EXAMPLES / "vector_add.cu.toml")

    worker_loop_once(PrepareJob(spec.to_dict(), "pycuda"))  # then the loop is left (a close would end the process)
    assert made == [1]  # (opening the device fails here, without a GPU: the first job reports that)
    assert prepare.job_args(spec, spec.to_dict())[0].tolist() == [0, 0, 0] and made == [1]


def test_the_early_worker_is_left_to_a_pool_where_gpus_or_a_ray_cluster_are_named(monkeypatch, hermetic):
    import argparse

    from kt_tui import cli
    from kt_tui.front import commands, early
    from kt_tui.gpu import tuner as raypool

    assert early.early_worker(argparse.Namespace(gpus="2", ray_address=None)) is None
    assert early.early_worker(argparse.Namespace(gpus=None, ray_address="10.0.0.1:6379")) is None
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.1:6379")
    assert early.early_worker(argparse.Namespace(gpus=None, ray_address=None)) is None
    monkeypatch.delenv("RAY_ADDRESS")

    class Worker:
        closed = False

        def close(self):
            self.closed = True

    started = []
    monkeypatch.setattr(early, "_worker", lambda data, start, **kw: started.append(Worker()) or started[-1])
    monkeypatch.setattr(raypool, "check_settings", lambda settings: None)
    given = []
    monkeypatch.setattr(commands, "run_auto", lambda settings, args, gpu: given.append(gpu) or 0)
    assert cli.main(["run", str(EXAMPLES / "vector_add.cu"), "--auto"]) == 0
    assert given == started and not started[0].closed  # started before the settings were read
    (hermetic / "config").mkdir()
    (hermetic / "config" / "config.toml").write_text("gpus = 2\n")  # the config file asks for a pool
    assert cli.main(["run", str(EXAMPLES / "vector_add.cu"), "--auto"]) == 0
    assert started[1].closed and given[1] is None


def test_a_tuning_job_carries_the_stored_results_of_its_space_only(hermetic, capsys):
    code, out = run_cli(
        capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim", "--max-configs", "2"
    )
    assert code == 0
    from kt_tui.engine.core import Engine

    store = Store(hermetic / "sessions.db")
    sid = out["session"]
    vid = store.versions(sid)[0]["id"]
    engine = Engine(store, sid, None, BackendChoice("sim", "H200"), lambda gate: None)
    spec = engine.version(vid)[1]
    stored = {k: (r.time_ms, r.status) for k, r in store.known_for_worker(sid, vid).items()}
    assert len(stored) == 3
    for many in (False, True):  # few results: all read and filtered; many: the space's keys looked up
        if many:
            store.add_results(
                sid,
                vid,
                "old",
                [
                    {
                        "key": str(10**6 + i),
                        "params": {"block_size_x": 10**6 + i},
                        "time_ms": 1.0,
                        "status": "ok",
                        "verified": True,
                    }
                    for i in range(200)
                ],
            )
        got = engine._known_for_worker(vid, spec)
        assert {k: (r.time_ms, r.status) for k, r in got.items()} == stored
        params = {k: json.loads(r.params) if isinstance(r.params, str) else r.params for k, r in got.items()}
        assert params == {k: {"block_size_x": int(k)} for k in stored}
