"""What the LLM is told of performance (issue 39): the device's facts, the baseline's time and its %
of the measured peak, the profiles, in every prompt and at the plan gate. The replies here are
scripted (tests/llm_server.py), never a model's; the H100 numbers are a recording made on an NVIDIA
H100 80GB HBM3 on 2026-12-06 (tests/fixtures/h100-2026-12-06/README.md)."""

import json

from kt_tui.config import load_settings
from kt_tui.engine.events import Decision
from kt_tui.engine.plan import PERFORMANCE_MARK
from kt_tui.front.commands import llm_factory, make_engine
from kt_tui.front.session import load_kernel_spec, new_session, pick_backend, read_kernel_file
from kt_tui.gpu.tuner import Tuner
from kt_tui.kernel.spec import version_ids
from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer

H100 = ROOT / "tests" / "fixtures" / "h100-2026-12-06"
NO_STEPS = json.dumps({"steps": []})


def _prompt(server: ScriptedServer, i: int) -> str:
    return server.requests[i]["messages"][-1]["content"]


def _plan_prompt(capsys, kernel, *flags) -> tuple[dict, str]:
    """An autonomous session, replayed, whose plan is empty: its JSON and the plan prompt it sent."""
    with ScriptedServer([NO_STEPS]) as server:
        code, out = run_cli(
            capsys, "run", kernel, "--strategy", "autonomous", "--no-replanning", "--auto", "--json",
            "--backend", "sim", "--base-url", server.url, "--model", MODEL, *flags,
        )  # fmt: skip
        assert code == 0, out
        return out, _prompt(server, 0)


def test_the_plan_prompt_has_the_h100_facts_the_baseline_time_and_its_share_of_the_copy_peak(capsys, hermetic):
    out, plan = _plan_prompt(capsys, H100 / "vadd.cu", "--sim-cache", H100 / "recorded")
    assert "NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs" in plan
    assert "measured peaks: copy 3024 GB/s (read + write)" in plan
    # 3 * 4 * 2**26 bytes (estimated: no [metrics]) in 0.2906 ms: 2771 GB/s, 91.6 % of 3024 GB/s
    assert "baseline {'block_size_x': 256}: 0.2906 ms; 2771 GB/s, 91.6 % of the measured copy bandwidth" in plan
    assert "bytes estimated" in plan
    assert "Nsight Compute, baseline: SM 41 %, DRAM 82 % of peak; occupancy 76 % of 100 %" in plan
    assert "long scoreboard 57.9" in plan and "ncu CPIStall" in plan
    block = plan.split("Nsight Compute):\n", 1)[1].split("\n\nKernel source", 1)[0]
    assert len(block) <= 1500
    assert out["device"]["copy_gbps"] == 3024.0
    assert round(out["baseline_limits"]["pct_bw"], 1) == 91.6 and out["baseline_limits"]["estimated"]
    assert [p["state"] for p in out["profiles"]] == ["recorded"]


def test_an_h200_recording_without_facts_says_so_and_shows_no_other_gpus_facts(capsys, hermetic):
    out, plan = _plan_prompt(capsys, EXAMPLES / "vector_add.cu")
    assert "NVIDIA H200 (recorded 2026-11-22): device facts not recorded (replayed from a recording" in plan
    assert "H100" not in plan and "measured peaks:" not in plan and "Nsight Compute," not in plan
    assert "baseline {'block_size_x': 256}: 0.0799 ms; 2519 GB/s" in plan  # [metrics] bytes, no peak to divide by
    assert out["device"] is None and "pct_bw" not in out["baseline_limits"]


def test_the_block_edited_at_the_plan_gate_is_what_the_next_prompts_carry(hermetic):
    plan = json.dumps({"steps": [{"title": "Unroll", "description": "two elements a thread"}]})
    verdict = json.dumps({"valid": False, "reason": "not worth it"})
    with ScriptedServer([plan, verdict, NO_STEPS]) as server:
        settings = load_settings(
            {
                "backend": "sim",
                "sim_cache": str(H100 / "recorded"),
                "strategy": "autonomous",
                "base_url": server.url,
                "model": MODEL,
            }
        )
        store = Store(hermetic / "s.db")
        kf = read_kernel_file(H100 / "vadd.cu")
        _, spec = load_kernel_spec(kf, None, None)
        gpu = Tuner()
        choice = pick_backend(settings, gpu, spec.kernel, version_ids(kf.source, spec), kf.path)
        sid = new_session(store, settings, kf, spec, choice)
        shown = {}

        def decide(gate):
            if gate.kind == "plan":
                shown["text"] = gate.text
                plan_part = gate.text.split(PERFORMANCE_MARK)[0]
                return Decision("edit", plan_part + PERFORMANCE_MARK + "\nthe user says: DRAM-bound, try vector loads")
            if gate.kind == "step":
                return Decision("skip")
            return Decision("approve")

        engine = make_engine(store, settings, sid, gpu, choice, decide, None)
        engine.make_llm = llm_factory(settings)
        assert engine.run(engine_strategy()) == "finished"
        validate, replan = _prompt(server, 1), _prompt(server, 2)
    assert PERFORMANCE_MARK in shown["text"] and "91.6 % of the measured copy bandwidth" in shown["text"]
    for prompt in (validate, replan):
        assert "the user says: DRAM-bound, try vector loads" in prompt
        assert "132 SMs" not in prompt  # the edit replaced the block
    assert [s["title"] for s in store.steps(sid)] == ["Unroll"]  # the plan part read as before


def engine_strategy():
    from kt_tui.engine.strategies.autonomous import autonomous

    return autonomous


def test_a_share_of_the_peak_says_how_much_of_the_time_is_the_launch_and_never_corrects_the_time():
    import tomllib

    from kt_tui.engine.limits import facts_text, limits, limits_text, work_of
    from kt_tui.kernel.spec import read_spec

    spec = read_spec(tomllib.loads((EXAMPLES / "vector_add.cu.toml").read_text()))  # [metrics] bytes = 3 * 4 * n
    facts = dict(json.loads((H100 / "facts.json").read_text()), copy_gbps=2955.8, launch_us=21.0)
    short = limits(work_of(spec), 0.1010, facts)  # the H100's example vector add (pycuda, 2026-12-06)
    assert round(short["pct_bw"], 1) == 67.4 and round(short["launch_pct"], 1) == 20.8  # the time as measured
    assert limits_text(short).endswith(
        "67.4 % of the measured copy bandwidth; kernel_tuner's time includes the launch (~21 us, 21 % of it)"
    )
    long = limits(work_of(spec), 0.5, facts)
    assert round(long["launch_pct"], 1) == 4.2 and "launch" not in limits_text(long)  # under 5 %: not said
    assert "launch ~21 us (kernel_tuner's time of a kernel doing next to nothing)" in facts_text(facts)
    assert "launch_pct" not in limits(work_of(spec), 0.1010, dict(facts, launch_us=None))
