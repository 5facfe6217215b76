"""On a GPU (pycuda): a Ctrl-C at a terminal reaches the whole process group, nvcc's compiles and the GPU
worker included; none of them may turn it into a crashed or uncompiled configuration, and the resume
measures the rest within the session's budget. A session prepared without a GPU and damaged by a
replay (an older kt-tui's plain resume) is measured when resumed here. Run on the GPU machine:
`python -m pytest -m gpu tests/gpu/test_resume_gpu.py`. The LLM replies are scripted."""

from __future__ import annotations

import re

import pytest

from kt_tui.store import Store

from ..cli.test_signals import Headless
from ..conftest import EXAMPLES
from ..engine.test_no_gpu import unmeasured_session
from ..helpers import report, run_cli

pytestmark = pytest.mark.gpu


def test_ctrl_c_on_a_gpu_loses_no_configuration_and_the_budget_holds(capsys, hermetic):
    args = ("run", EXAMPLES / "reduction.cu", "--auto", "--json", "--backend", "pycuda", "--max-configs", "12")
    run = Headless(hermetic, *args, pace=0)
    run.wait_for(lambda err: err.count(" ms  ok") >= 4, timeout=300)
    run.ctrl_c()
    code, out = run.finish(timeout=120)
    assert code == 130 and out["state"] == "stopped", (out, run.stderr()[-3000:])
    store = Store(hermetic / "sessions.db")
    bad = [(r.key, r.status, r.error) for r in store.results(out["session"]) if r.status != "ok"]
    assert not bad, bad  # the signal reached no worker, nvcc or compile: nothing crashed or failed to compile
    code, again = run_cli(capsys, "resume", out["session"], "--auto", "--json", "--backend", "pycuda")
    assert code == 0 and again["state"] == "finished", again
    assert again["results"] == 13  # the baseline and the budget of 12, as an uninterrupted run
    report(f"ctrl-c on pycuda: stopped after {out['results']} results, resumed to {again['results']} (13 expected)")


def test_a_prepared_session_damaged_by_a_replay_is_measured_on_a_gpu(capsys, hermetic):
    sid, _, db = unmeasured_session(capsys, hermetic)
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json", "--backend", "sim", "--llm", "none")
    assert any("no recorded cache" in (s["reason"] or "") for s in out["steps"]), out  # the damage
    code, out = run_cli(capsys, "resume", sid, "--auto", "--json", "--backend", "pycuda", "--llm", "none")
    assert code == 0 and out["state"] == "finished" and not out["simulated"], out
    assert not [s for s in out["steps"] if "no recorded cache" in (s["reason"] or "")], out["steps"]
    kernels = [s for s in out["steps"] if s["state"] != "skipped"]  # step 4 changes no kernel
    assert kernels and all(s["state"] in ("accepted", "rejected", "failed") for s in kernels), kernels
    measured = [s for s in kernels if s["state"] != "failed"]  # a wrong kernel fails on its outputs, not timed
    assert measured and all(re.match(r"\d+\.\d{4} ms", s["reason"]) for s in measured), measured
    report(f"repaired on pycuda: {[(s['id'], s['state']) for s in out['steps']]}, best {out['best']}")
