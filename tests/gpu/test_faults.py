"""The fault suite (tests/faults/faults.toml): broken versions of a correct kernel, each run as a
generated kernel through the engine (review, compile check, verify, check at other sizes, tune).

Without a GPU: the manifest, the safety review's flags, the compile errors nvcc reports, and the
watchdog's restart and resume with KT_TUI_FAULT on the sim backend. With a GPU (`gpu` marker):
every fault for real, each followed by a good version that must still measure, then a resume that
measures nothing again; a table goes to the file named by KT_TUI_GPU_REPORT."""

from __future__ import annotations

import shutil
import time
import tomllib
from pathlib import Path

import pytest

from kt_tui.config import load_settings
from kt_tui.engine.backend import BackendChoice
from kt_tui.engine.checks import first_failure
from kt_tui.engine.core import Engine
from kt_tui.engine.kernel_step import run_rewrite
from kt_tui.front.headless import make_policy
from kt_tui.front.session import load_kernel_spec, new_session, pick_backend, read_kernel_file
from kt_tui.gpu.compile import compile_check
from kt_tui.gpu.tuner import Tuner
from kt_tui.kernel.review import review
from kt_tui.kernel.spec import load_spec, version_ids
from kt_tui.llm.schemas import KernelRewrite
from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import report, run_cli

FAULTS = ROOT / "tests" / "faults"
MANIFEST = tomllib.loads((FAULTS / "faults.toml").read_text())
CASES = MANIFEST["fault"]
IDS = [Path(c["file"]).stem for c in CASES]
# unsafe: memcheck refused a generated kernel (engine/checks.py)
STATUSES = {"ok", "compile_error", "wrong_result", "timeout", "crash", "runtime_error", "unsafe"}
BASE = (FAULTS / MANIFEST["base"]).read_text()
SPEC = load_spec(FAULTS / (MANIFEST["base"] + ".toml"))
TUNE = {"block_size_x": [64, 128, 256, 512]}
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found on PATH")


# -- the manifest -------------------------------------------------------------------------------
def test_the_manifest_lists_every_fault_file():
    listed = [c["file"] for c in CASES]
    files = {p.name for p in FAULTS.glob("*.cu")} - {MANIFEST["base"], MANIFEST["good"]}
    assert sorted(listed) == sorted(files) and len(listed) == len(set(listed)) >= 12
    for c in CASES:
        assert c["breaks"] and c["status"] and set(c["status"]) <= STATUSES, c["file"]
        assert c.get("sanitizer") in (None, "memcheck", "racecheck")


def test_an_out_of_bounds_write_may_fault_or_corrupt_but_never_pass():
    """H100: the write past the end faults (runtime_error); H200: it corrupts memory (wrong_result)."""
    case = next(c for c in CASES if c["file"] == "oob_write.cu")
    assert set(case["status"]) == {"wrong_result", "runtime_error"}


# -- the safety review and the compile check (no GPU) ----------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_review_flags(case):
    flags = review(BASE, (FAULTS / case["file"]).read_text(), SPEC.kernel)
    assert sorted({f.kind for f in flags}) == case["flags"]
    assert all(f.line > 0 for f in flags)


@needs_nvcc
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_compile_check(case):
    result = compile_check((FAULTS / case["file"]).read_text(), SPEC.baseline_params(), spec=SPEC)
    if "compile" not in case:
        assert result.ok is True, [m.text for m in result.errors]
        return
    assert result.ok is False
    error = result.errors[0]
    assert case["compile"] in error.text and error.line == case["compile_line"]
    assert error.source_line.strip()


def open_session(hermetic, backend: str):
    """A session on the fault suite's base kernel; backend "none" measures nothing."""
    settings = load_settings({"backend": "auto" if backend == "none" else backend})
    kf = read_kernel_file(FAULTS / MANIFEST["base"])
    _, spec = load_kernel_spec(kf, None, None)
    store = Store(hermetic / "faults.db")
    gpu = Tuner(log_path=str(hermetic / "gpu-worker.log"))
    if backend == "none":
        choice = BackendChoice("none", "")
    else:
        choice = pick_backend(settings, gpu, spec.kernel, version_ids(kf.source, spec), kf.path)
    return store, new_session(store, settings, kf, spec, choice), gpu, choice


def scripted(*files: str, measure: bool = True):
    """A strategy: the original's baseline, then each file as the generated kernel of its own step."""

    def strategy(engine):
        if measure:
            engine.baseline(engine.original)
        for f in files:
            step = Path(f).stem
            if not any(s["id"] == step for s in engine.store.steps(engine.sid)):
                engine.set_step(step, title=f, description="fault suite", state="approved")
            rewrite = KernelRewrite(kernel_code=(FAULTS / f).read_text(), tune_params=TUNE, explanation=f)
            yield from run_rewrite(engine, step, f, rewrite)

    return strategy


def make_engine(store, sid, gpu, choice, hermetic, on_event=None, decide=None):
    # make_llm is a stand-in that is never called: the kernels come from the files, not manual mode
    return Engine(
        store,
        sid,
        gpu,
        choice,
        decide or make_policy(allow_flagged=True),
        on_event,
        cache_dir=hermetic / "caches",
        make_llm=lambda on_call: None,
        options={"search": "brute_force", "seeds": False, "threshold": 0.0},
    )


def outcome(engine, step_id: str) -> tuple[str, str]:
    """What the step saw, in the manifest's words, and the step's reason."""
    step = next(s for s in engine.store.steps(engine.sid) if s["id"] == step_id)
    reason = step["reason"] or ""
    if reason.startswith("does not compile"):
        return "compile_error", reason
    if not step["version"]:
        return step["state"], reason
    _, spec = engine.version(step["version"])
    params = spec.baseline_params()
    first = engine.known(step["version"]).get(",".join(str(params[n]) for n in spec.tune_params))
    if first is None:
        return "run_failed", reason
    if first.status != "ok":
        return first.status, reason
    bad = first_failure(engine.check_sizes(step["version"], params))
    return (bad.status if bad else "ok"), reason


@pytest.mark.parametrize("case", [c for c in CASES if "compile" in c], ids=lambda c: Path(c["file"]).stem)
@needs_nvcc
def test_compile_faults_end_their_step_with_the_line(case, hermetic):
    store, sid, gpu, choice = open_session(hermetic, "none")
    engine = make_engine(store, sid, gpu, choice, hermetic)
    assert engine.run(scripted(case["file"], measure=False)) == "finished"
    gpu.close()
    seen, reason = outcome(engine, Path(case["file"]).stem)
    assert seen == "compile_error" and f"line {case['compile_line']}:" in reason and case["compile"] in reason
    assert store.results(sid) == []


def test_hang_and_crash_are_recorded_and_resume_measures_nothing_twice(capsys, monkeypatch, hermetic):
    monkeypatch.setenv("KT_TUI_FAULT", "hang:64")
    code, out = run_cli(
        capsys, "run", EXAMPLES / "vector_add.cu", "--auto", "--json", "--backend", "sim", "--timeout", "1"
    )
    assert code == 0 and out["state"] == "finished"
    store = Store(hermetic / "sessions.db")
    first = {r.key: (r.status, r.timestamp) for r in store.results(out["session"])}
    assert first["64"][0] == "timeout" and len(first) == 6
    monkeypatch.setenv("KT_TUI_FAULT", "crash:128")  # would crash if 128 were measured again
    code, again = run_cli(capsys, "resume", out["session"], "--auto", "--json", "--backend", "sim")
    assert code == 0 and again["session"] == out["session"] and again["state"] == "finished"
    assert {r.key: (r.status, r.timestamp) for r in store.results(out["session"])} == first


# -- on a GPU ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def table():
    report("")
    report("| kernel | expected status | status seen | seconds to recover |")
    report("| --- | --- | --- | --- |")


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fault_on_the_gpu(case, hermetic, table):
    store, sid, gpu, choice = open_session(hermetic, "auto")
    fault, good = Path(case["file"]).stem, Path(MANIFEST["good"]).stem
    times = {}

    def on_event(e):
        if e.kind == "step" and e.data.get("id") == good and e.data.get("state") == "running":
            times.setdefault("recovered", time.monotonic())

    policy = make_policy(allow_flagged=True)

    def decide(gate):
        if gate.key == f"kernel:{fault}":
            times.setdefault("fault", time.monotonic())
        return policy(gate)

    strategy = scripted(case["file"], MANIFEST["good"])
    engine = make_engine(store, sid, gpu, choice, hermetic, on_event, decide)
    try:
        assert engine.run(strategy) == "finished", store.session(sid)["error"]
        seen, reason = outcome(engine, fault)
        secs = times.get("recovered", time.monotonic()) - times.get("fault", time.monotonic())
        report(f"| {case['file']} | {' or '.join(case['status'])} | {seen} | {secs:.1f} |")
        assert seen in case["status"], reason
        if seen != "ok":
            assert next(s for s in store.steps(sid) if s["id"] == fault)["state"] == "failed"
        if seen == "wrong_result":
            assert all(word in reason for word in case.get("reason", [])), reason
        # the worker is alive: the good version after the fault verifies, passes its checks and tunes
        assert outcome(engine, good)[0] == "ok"
        assert next(s for s in store.steps(sid) if s["id"] == good)["state"] in ("accepted", "rejected")
        if case.get("sanitizer"):
            _sanitizer_sees_it(engine, case)
        # the session is intact: a resume measures and checks nothing again
        results = {(r.version, r.key): r.timestamp for r in store.results(sid)}
        checks = len(store.checks(sid))
        assert make_engine(store, sid, gpu, choice, hermetic).run(strategy) == "finished"
        assert {(r.version, r.key): r.timestamp for r in store.results(sid)} == results
        assert len(store.checks(sid)) == checks
    finally:
        gpu.close()


def _sanitizer_sees_it(engine, case):
    from kt_tui.gpu.sanitize import find_sanitizer

    if find_sanitizer() is None:
        report(f"  ({case['file']}: compute-sanitizer not found, {case['sanitizer']} not run)")
        return
    _, spec = engine.version(engine.original)
    result = engine.sanitize((FAULTS / case["file"]).read_text(), spec, case["sanitizer"])
    if result["ok"] is None:  # e.g. "Device not supported" where the GPU is virtualized
        report(f"  ({case['file']}: {case['sanitizer']} could not run: {result['reason']})")
        return
    report(f"  ({case['file']}: {case['sanitizer']} found {result['errors']} error(s) in {result['seconds']:.1f} s)")
    assert result["ok"] is False, result


@pytest.mark.gpu
def test_a_version_wrong_only_at_a_ragged_size_ends_wrong_result_with_the_index(hermetic):
    store, sid, gpu, choice = open_session(hermetic, "auto")
    engine = make_engine(store, sid, gpu, choice, hermetic)
    try:
        assert engine.run(scripted("ragged_float4.cu")) == "finished"
    finally:
        gpu.close()
    step = next(s for s in store.steps(sid) if s["id"] == "ragged_float4")
    first = engine.known(step["version"])["256"]
    assert first.status == "ok" and first.verified  # right at the spec's size
    assert step["state"] == "failed"
    assert step["reason"].startswith("wrong result at n=349525: out[349524] = nan, expected "), step["reason"]
    check = store.checks(sid, step["version"], "256")[0]
    assert check.ok is False and check.verdicts and check.verdicts[0]["first_bad"] == 349524
    report(f"ragged float4: {step['reason']}")


@pytest.mark.gpu
def test_kt_tui_run_reports_the_ragged_failure(capsys, hermetic):
    import json

    from ..llm_server import MODEL, ScriptedServer

    reply = json.dumps(
        {
            "kernel_code": (FAULTS / "ragged_float4.cu").read_text(),
            "tune_params": TUNE,
            "explanation": "float4 loads and stores",
        }
    )
    with ScriptedServer([reply]) as server:
        code, out = run_cli(
            capsys,
            "run",
            FAULTS / MANIFEST["base"],
            "--strategy",
            "one-prompt",
            "--auto",
            "--json",
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
    assert code == 0 and not out["simulated"]
    step = out["steps"][-1]
    assert step["state"] == "failed" and "wrong result at n=349525: out[349524]" in step["reason"]
    report(f"kt-tui run (one-prompt, ragged float4): step {step['state']}: {step['reason'][:120]}")
