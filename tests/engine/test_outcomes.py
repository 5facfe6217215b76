"""Verification is three-state and the engine resolves it; runs end in typed outcomes and the
engine alone maps them to the session's state."""

import json

import numpy as np

from kt_tui.config import load_settings
from kt_tui.engine.backend import BackendChoice
from kt_tui.engine.core import Engine
from kt_tui.engine.events import Decision
from kt_tui.engine.strategies.sweep import sweep
from kt_tui.front.session import load_kernel_spec, new_session, read_kernel_file
from kt_tui.gpu.protocol import TuneJob
from kt_tui.kernel.spec import spec_from_plain
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer
from .test_checks import FLOAT4, RECORDED

FASTER = {"32": 0.5, "64": 0.4, "128": 0.3, "256": 1.0, "512": 0.2, "1024": 0.6}


class FakeGpu:
    """A GPU worker that measures vector_add instantly. `capture`: whether a capture job yields
    reference outputs; `verdicts`: whether a run given a reference says right (True) or nothing."""

    def __init__(self, capture=True, verdicts=True):
        self.capture, self.verdicts, self.jobs = capture, verdicts, []

    def binaries(self, runs, backend, timeout_s):  # the session's compile pool's (gpu/compiling.py): none
        return []

    def run(self, job, on_event, timeout_s):
        self.jobs.append(job)
        if not isinstance(job, TuneJob):
            return {}
        spec = spec_from_plain(job.spec)
        configs = job.configs or [{"block_size_x": v} for v in spec.tune_params["block_size_x"]]
        if job.capture_reference and self.capture:
            on_event("reference", {"c": np.arange(4, dtype=np.float32)})
        for c in configs:
            key = str(c["block_size_x"])
            if key in job.known:
                continue
            verified = True if (job.reference is not None and self.verdicts) else None
            on_event(
                "result",
                {
                    "key": key,
                    "params": dict(c),
                    "time_ms": FASTER[key],
                    "times": [FASTER[key]],
                    "status": "ok",
                    "error": None,
                    "verified": verified,
                    "source": "measured",
                },
            )
        return {"device": "Fake GPU"}

    def request_stop(self):
        pass

    def close(self):
        pass


def real_session(store):
    settings = load_settings({"backend": "cupy"})
    kf = read_kernel_file(EXAMPLES / "vector_add.cu")
    _, spec = load_kernel_spec(kf, None, None)
    choice = BackendChoice("cupy", "Fake GPU", arch="sm_90")
    return new_session(store, settings, kf, spec, choice), choice


def approve(gate):
    return Decision("approve")


def test_on_a_real_backend_an_unverified_result_never_becomes_best(hermetic):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    engine = Engine(store, sid, FakeGpu(verdicts=False), choice, approve)
    assert engine.run(sweep) == "finished"
    rows = {r.key: r for r in store.results(sid)}
    assert rows["512"].verified is None and rows["512"].time_ms < rows["256"].time_ms
    s = store.session(sid)
    assert s["best_key"] == "256"  # the reference itself, not the faster unverified ones
    assert engine.best_of(engine.original).key == "256"
    assert engine.confirm_best(engine.original).key == "256"


def test_verified_results_do_become_best(hermetic):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    Engine(store, sid, FakeGpu(), choice, approve).run(sweep)
    assert store.session(sid)["best_key"] == "512"


def test_a_reference_that_cannot_be_captured_fails_with_no_reference(hermetic):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    gpu = FakeGpu(capture=False)
    engine = Engine(store, sid, gpu, choice, approve)
    assert engine.run(sweep) == "failed"
    assert store.session(sid)["error"].startswith("no reference")
    assert any(j.run_id.startswith("reference:") for j in gpu.jobs)  # it was tried again first
    assert not any(j.run_id == "sweep:1" for j in gpu.jobs)  # and nothing was tuned unchecked
    source, spec = engine.version(engine.original)
    vid = engine.new_version(source.replace("int i =", "int i = 0 +"), spec, engine.original, "changed")
    out = engine.verify(vid)
    assert out.failed and out.error.startswith("no reference") and out.result is None
    assert not store.results(sid, vid)  # it never ran unchecked


def test_a_damaged_refs_file_is_captured_again_not_taken_as_no_reference(hermetic):
    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    gpu = FakeGpu()
    Engine(store, sid, gpu, choice, approve).baseline(store.versions(sid)[0]["id"])
    store.flush_references()
    ref = next(store.refs_dir.glob(f"{sid}-*.npy"))
    ref.write_bytes(ref.read_bytes()[:20])  # truncated
    store = Store(hermetic / "s.db")  # a later process (resume): only the damaged file is left
    engine = Engine(store, sid, gpu, choice, approve)
    assert store.reference(sid, engine.original) is None
    outcome = engine.tune(engine.original, "tune:1")
    assert outcome.state == "finished" and outcome.measured == 5
    assert any(j.run_id.startswith("reference:") for j in gpu.jobs)
    tune_job = next(j for j in gpu.jobs if j.run_id == "tune:1")
    assert tune_job.reference is not None
    assert all(r.verified is True for r in store.results(sid) if r.key != "256")


def test_sim_recording_without_verdicts_does_not_pass_a_step(capsys, hermetic):
    from kt_tui.kernel.spec import load_spec, version_hash

    spec = load_spec(EXAMPLES / "vector_add.cu.toml")
    vid = version_hash(FLOAT4, spec)
    caches = hermetic / "caches-in"
    caches.mkdir()
    (caches / RECORDED.name).write_text(RECORDED.read_text())
    data = json.loads(RECORDED.read_text())
    for entry in data["cache"].values():
        entry.pop("kt_correct", None)
        entry["time"] = 0.001  # faster than anything: still must not become best
    data["kt_tui"] = dict(data.get("kt_tui") or {}, kernel_version=vid)
    (caches / f"vector_add-{vid}.json").write_text(json.dumps(data))
    reply = json.dumps(
        {
            "kernel_code": FLOAT4,
            "tune_params": {"block_size_x": [32, 64, 128, 256, 512, 1024]},
            "explanation": "float4 loads",
        }
    )
    with ScriptedServer([reply]) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "one-prompt",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            caches,
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
    step = out["steps"][-1]
    assert step["version"] == vid and step["state"] == "failed"
    assert step["reason"] == "not verified (recording has no verdict)"
    assert out["best"]["kernel_version"] != vid and out["best"]["verified"] in (
        "reference",
        "verified (recorded verdict)",
    )


def test_config_search_where_every_run_failed_ends_failed_with_a_non_zero_exit(capsys, hermetic):
    caches = hermetic / "caches-in"
    caches.mkdir()
    data = json.loads(RECORDED.read_text())
    for entry in data["cache"].values():
        entry["time"] = "RuntimeFailedConfig"
        entry.pop("times", None)
    (caches / RECORDED.name).write_text(json.dumps(data))
    reply = json.dumps({"configs": [{"block_size_x": 64}, {"block_size_x": 512}], "reasoning": "bigger blocks"})
    with ScriptedServer([reply]) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "config-search",
            "--auto",
            "--json",
            "--backend",
            "sim",
            "--sim-cache",
            caches,
            "--base-url",
            server.url,
            "--model",
            MODEL,
            "--rounds",
            "1",
        )
    assert code != 0 and out["state"] == "failed"
    assert out["error"].startswith("nothing could be measured: runtime_error") and out["best"] is None
    store = Store(hermetic / "sessions.db")
    assert {r.status for r in store.results(out["session"])} == {"runtime_error"}
    assert len(store.results(out["session"])) == 3


def test_the_accept_gate_says_a_sim_verdict_was_recorded():
    import io

    from rich.console import Console

    from kt_tui.engine.gates import AcceptGate
    from kt_tui.engine.verdict import verdict_text
    from kt_tui.records import Result
    from kt_tui.ui.gate_view import render_gate

    said = verdict_text(Result("1", {}, "ok", verified=True, source="recorded"), simulated=True)
    assert said == "verified (recorded verdict)"
    assert (
        verdict_text(Result("1", {}, "ok", verified=None), simulated=True) == "not verified (recording has no verdict)"
    )
    console = Console(width=160, record=True, file=io.StringIO())
    console.print(
        render_gate(AcceptGate(key="accept:1", title="Accept?", recommend=True, threshold=0.02, verified=said))
    )
    assert "At the spec's size: verified (recorded verdict)." in console.export_text()


def test_checks_at_other_sizes_capture_a_lost_reference_again(hermetic):
    from kt_tui.gpu.protocol import CheckJob

    store = Store(hermetic / "s.db")
    sid, choice = real_session(store)
    gpu = FakeGpu()
    Engine(store, sid, gpu, choice, approve).baseline(store.versions(sid)[0]["id"])
    store.flush_references()
    next(store.refs_dir.glob(f"{sid}-*.npy")).unlink()
    store = Store(hermetic / "s.db")  # a later process (resume): the file is gone
    engine = Engine(store, sid, gpu, choice, approve)
    source, spec = engine.version(engine.original)
    vid = engine.new_version(source.replace("int i =", "int i = 0 +"), spec, engine.original, "changed")
    engine.check_sizes(vid, {"block_size_x": 128})
    kinds = [type(j).__name__ + ":" + j.run_id.split(":")[0] for j in gpu.jobs]
    assert kinds[-2:] == ["TuneJob:reference", "CheckJob:check"]
    assert isinstance(gpu.jobs[-1], CheckJob) and store.reference(sid, engine.original) is not None
