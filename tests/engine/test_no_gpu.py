"""`--backend none`: with no GPU and no recorded cache the whole loop runs (plan, kernels
compile-checked, every gate) and nothing is measured; the session waits for a GPU, and resuming it
on one (sim stands in here) measures what was not measured and asks the accept gates again."""

from kt_tui.cli import main
from kt_tui.store import Store

from ..conftest import EXAMPLES
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer
from .test_autonomous import CACHES, replies


def unmeasured_session(capsys, hermetic) -> tuple[str, dict, str]:
    with ScriptedServer(replies("matmul")) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "matmul.cu",
            "--strategy",
            "autonomous",
            "--auto",
            "--json",
            "--backend",
            "none",
            "--base-url",
            server.url,
            "--model",
            MODEL,
        )
        assert not server.script  # the whole plan ran: every scripted reply was asked for
    assert code == 0, out
    return out["session"], out, str(hermetic / "sessions.db")


def test_no_gpu_runs_every_gate_and_waits_for_one(capsys, hermetic):
    sid, out, db = unmeasured_session(capsys, hermetic)
    assert out["state"] == "unmeasured" and out["error"] is None and out["results"] == 0
    assert [(s["id"], s["state"]) for s in out["steps"]] == [
        ("1", "not measured"),
        ("2", "not measured"),
        ("3", "not measured"),
        ("4", "skipped"),
    ]
    store = Store(db)
    runs = {r.id: r.state for r in store.runs(sid)}
    assert runs and set(runs.values()) == {"not measured"}, runs
    gate = store.gate(sid, "accept:1:unmeasured")
    assert gate.body["verified"] == "not checked: no GPU" and gate.body["new_ms"] is None
    assert "no time to compare" in gate.body["effect"]
    kernel = store.gate(sid, "kernel:3").body
    assert kernel["compile"]["ok"] is True  # nvcc checked it offline


def test_the_last_line_says_how_to_go_on(capsys, hermetic):
    with ScriptedServer(replies("matmul")) as server:
        code = main(["run", str(EXAMPLES / "matmul.cu"), "--strategy", "autonomous", "--auto", "--backend", "none",
                     "--base-url", server.url, "--model", MODEL])  # fmt: skip
    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 0
    assert "unmeasured" in lines[-1] and "kt-tui resume" in lines[-1] and "--backend pycuda" in lines[-1]


def test_resumed_on_a_gpu_it_is_measured_and_asked_again(capsys, hermetic):
    sid, _, db = unmeasured_session(capsys, hermetic)
    code, out = run_cli(
        capsys, "resume", sid, "--auto", "--json", "--backend", "sim", "--sim-cache", CACHES, "--llm", "none"
    )
    assert code == 0 and out["state"] == "finished", out
    assert out["results"] > 0 and out["best"]["time_ms"] > 0 and out["speedup"] > 2
    # as a session made on the GPU ends: step 2's kernel is now found wrong, 1 and 3 accepted with times
    states = [(s["id"], s["state"]) for s in out["steps"]]
    assert states[:3] == [("1", "accepted"), ("2", "failed"), ("3", "accepted")]
    assert "wrong result" in out["steps"][1]["reason"]
    store = Store(db)
    assert store.gate(sid, "accept:1").decision["choice"] == "approve"  # asked again, with times
    assert store.gate(sid, "accept:1").body["new_ms"] > 0
    assert not [r for r in store.runs(sid) if r.state == "not measured"]
    assert "SIMULATED" in out["check"]["why"]  # the check state was worked out again on the new backend


def test_an_unmeasured_session_is_listed_and_its_export_says_how_to_go_on(capsys, hermetic):
    sid, _, _ = unmeasured_session(capsys, hermetic)
    code, listed = run_cli(capsys, "sessions", "--json")
    assert code == 0 and listed[0]["state"] == "unmeasured"
    code = main(["export", sid, "--out", str(hermetic / "out")])
    out = capsys.readouterr().out
    assert code == 0 and "not measured; wrote what it has" in out and f"kt-tui resume {sid}" in out
    assert (hermetic / "out" / "report.md").exists()  # what it has: tests/engine/test_prepared_resume.py


def test_a_kernel_rejected_without_times_is_never_measured(capsys, hermetic):
    sid, _, db = unmeasured_session(capsys, hermetic)
    store = Store(db)
    vid = store.gate(sid, "accept:1:unmeasured").body["version"]
    store.decide_gate(sid, "accept:1:unmeasured", {"choice": "skip", "by": "user"})  # as `k` at that gate
    code, out = run_cli(
        capsys, "resume", sid, "--auto", "--json", "--backend", "sim", "--sim-cache", CACHES, "--llm", "none"
    )
    assert code == 0 and out["state"] == "finished", out
    assert out["steps"][0]["state"] == "skipped" and "before it was measured" in out["steps"][0]["reason"]
    assert not store.results(sid, vid) and store.gate(sid, "accept:1") is None
