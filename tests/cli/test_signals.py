"""Ctrl-C and SIGTERM at a headless `kt-tui run --auto`, sent as real signals to a subprocess (a
Ctrl-C at a terminal reaches the whole process group, so it is sent to the group): the session is
left "stopped" with a message saying how to go on, never "finished" or "running"; the run it cut is
stopped, not done, and `resume --auto` measures the rest and finishes. A second Ctrl-C aborts at once.
Sim replays of caches recorded on an NVIDIA H200 (2026-11-22), slowed with KT_TUI_SIM_PACE; the
LLM replies are scripted (tests/scripted/)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..engine.test_autonomous import CACHES, replies
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer

STEPS = ROOT / "tests" / "scripted" / "vector_add-steps.toml"


class Headless:
    """`kt-tui ARGS` in its own session (process group), as a terminal runs it; its stderr in a file."""

    def __init__(self, hermetic: Path, *args, pace: float = 0.25):
        self.err = hermetic / "stderr.txt"
        path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])  # a box's packages too
        env = {**os.environ, "KT_TUI_SIM_PACE": str(pace), "PYTHONPATH": path}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kt_tui", *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=self.err.open("w"),
            env=env,
            start_new_session=True,
        )

    def stderr(self) -> str:
        return self.err.read_text()

    def wait_for(self, condition, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not condition(self.stderr()):
            assert self.proc.poll() is None, f"ended early ({self.proc.returncode}):\n{self.stderr()[-3000:]}"
            assert time.monotonic() < deadline, self.stderr()[-3000:]
            time.sleep(0.05)

    def results(self) -> int:
        return self.stderr().count(" ms  ok")

    def ctrl_c(self) -> None:
        os.killpg(self.proc.pid, signal.SIGINT)

    def finish(self, timeout: float = 60) -> tuple[int, dict]:
        out, _ = self.proc.communicate(timeout=timeout)
        text = out.decode()
        return self.proc.returncode, json.loads(text[text.find("{") :])


def _sweep(hermetic: Path) -> Headless:
    return Headless(hermetic, "run", EXAMPLES / "matmul.cu", "--auto", "--json", "--backend", "sim")


def test_one_ctrl_c_stops_a_sweep_and_a_resume_goes_on_from_there(capsys, hermetic):
    run = _sweep(hermetic)
    run.wait_for(lambda err: err.count(" ms  ok") >= 4)
    run.ctrl_c()
    code, out = run.finish()
    err = run.stderr()
    assert code == 130 and out["state"] == "stopped" and out["results"] < 17, (out, err[-2000:])
    assert f"session {out['session']} stopped by Ctrl-C" in err and f"kt-tui resume {out['session']} --auto" in err
    store = Store(hermetic / "sessions.db")
    assert store.run(out["session"], "sweep:1").state == "stopped"
    assert not [r for r in store.results(out["session"]) if r.status != "ok"]  # no configuration lost to the signal
    code, again = run_cli(capsys, "resume", out["session"], "--auto", "--json")
    assert code == 0 and again["state"] == "finished" and again["results"] == 17, again  # 1 baseline + 16 more
    assert store.run(out["session"], "sweep:1").state == "finished"
    code, again = run_cli(capsys, "resume", out["session"], "--auto", "--json")
    assert code == 0 and again["state"] == "finished" and again["results"] == 17


def test_sigterm_is_one_ctrl_c(capsys, hermetic):
    run = _sweep(hermetic)
    run.wait_for(lambda err: err.count(" ms  ok") >= 3)
    run.proc.send_signal(signal.SIGTERM)
    code, out = run.finish()
    assert code == 143 and out["state"] == "stopped", out
    assert "stopped by SIGTERM" in run.stderr()
    assert Store(hermetic / "sessions.db").session(out["session"])["state"] == "stopped"  # never left "running"
    code, again = run_cli(capsys, "resume", out["session"], "--auto", "--json")
    assert code == 0 and again["state"] == "finished" and again["results"] == 17


def test_a_second_ctrl_c_aborts_at_once_and_nothing_is_lost(capsys, hermetic):
    run = _sweep(hermetic)
    run.wait_for(lambda err: err.count(" ms  ok") >= 3)
    run.ctrl_c()
    run.wait_for(lambda err: "stopping (Ctrl-C)" in err)
    run.ctrl_c()
    code, out = run.finish(timeout=10)  # not the minute a graceful stop may take: it does not wait
    err = run.stderr()
    assert code == 130 and out["state"] == "stopped", (out, err[-2000:])
    assert "aborted by a second Ctrl-C" in err or "stopped by Ctrl-C" in err  # the second may come after the stop
    store = Store(hermetic / "sessions.db")
    assert store.session(out["session"])["state"] == "stopped"
    assert all(r.state != "running" for r in store.runs(out["session"]))
    code, again = run_cli(capsys, "resume", out["session"], "--auto", "--json")
    assert code == 0 and again["state"] == "finished" and again["results"] == 17


def test_ctrl_c_during_a_one_prompt_step_tune_is_a_stop_not_the_end(capsys, hermetic):
    with ScriptedServer(replies("matmul-one-prompt")) as server:
        run = Headless(
            hermetic, "run", EXAMPLES / "matmul.cu", "--strategy", "one-prompt", "--auto", "--json",
            "--backend", "sim", "--sim-cache", CACHES, "--base-url", server.url, "--model", MODEL, pace=0.3,
        )  # fmt: skip
        run.wait_for(lambda err: "run tune:one-prompt" in err)
        run.wait_for(lambda err: err.split("run tune:one-prompt", 1)[1].count(" ms  ") >= 2)
        run.ctrl_c()
        code, out = run.finish()
    assert code == 130 and out["state"] == "stopped", (out, run.stderr()[-2000:])
    assert out["steps"][0]["state"] not in ("skipped", "accepted", "rejected")  # nothing decided by policy
    store = Store(hermetic / "sessions.db")
    assert store.run(out["session"], "tune:one-prompt").state == "stopped"
    assert store.gate(out["session"], "accept:one-prompt") is None
    code, again = run_cli(capsys, "resume", out["session"], "--auto", "--json", "--sim-cache", CACHES, "--llm", "none")
    assert code == 0 and again["state"] == "finished", again
    assert [(s["id"], s["state"]) for s in again["steps"]] == [("one-prompt", "accepted")] and again["speedup"] > 2
    tune = store.run(out["session"], "tune:one-prompt")
    assert tune.state == "finished" and store.count_results(out["session"], tune.version) == tune.total  # + its verify


def test_ctrl_c_during_an_llm_call_skips_no_step(capsys, hermetic):
    script = replies("vector_add-explicit")
    slow = [{"delay": 60, "reply": script[0]}, *script[1:]]
    with ScriptedServer(slow) as server:
        run = Headless(
            hermetic, "run", EXAMPLES / "vector_add.cu", "--strategy", "explicit", "--steps", STEPS, "--auto",
            "--json", "--backend", "sim", "--sim-cache", CACHES, "--base-url", server.url, "--model", MODEL, pace=0,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.requests, run.stderr()[-2000:]
        run.ctrl_c()
        code, out = run.finish(timeout=30)
    assert code == 130 and out["state"] == "stopped", (out, run.stderr()[-2000:])
    assert not [s for s in out["steps"] if s["state"] in ("skipped", "failed")]
    with ScriptedServer(script) as server:  # the call is made again, then the rest as before
        code, again = run_cli(
            capsys, "resume", out["session"], "--auto", "--json", "--sim-cache", CACHES,
            "--base-url", server.url, "--model", MODEL,
        )  # fmt: skip
    assert code == 0 and again["state"] == "finished", again
    states = {s["id"]: s["state"] for s in again["steps"]}
    assert states["items"] == "accepted" and states["block_xy"] == "skipped"


def test_a_stored_policy_stop_after_a_cut_sweep_is_left_by_a_resume(capsys, hermetic, monkeypatch):
    """A session an older kt-tui left this way (one Ctrl-C stored a policy "stop" at "Continue the
    sweep?", which every `resume --auto` replayed): a resume goes on and finishes."""
    from kt_tui.engine.events import Decision

    from ..engine.test_engine import sweep_stopped_at

    monkeypatch.setenv("KT_TUI_SIM_PACE", "0.05")
    store = Store(hermetic / "sessions.db")
    decisions = iter([Decision("approve", by="policy"), Decision("stop", by="policy")])
    sid, state = sweep_stopped_at(store, 3, lambda g: next(decisions))
    assert state == "stopped"
    assert store.gate(sid, "sweep:2").decision["choice"] == "stop"
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json")
    assert code == 0 and out["state"] == "finished" and out["results"] == 17, out
