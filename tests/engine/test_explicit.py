"""The explicit and one-prompt strategies, the steps files, manual mode and strategy plugins, headless,
against the scripted LLM server (every reply is scripted) and kernels recorded on a real GPU (sim)."""

import json
from pathlib import Path

import pytest

from kt_tui.engine.events import Decision
from kt_tui.engine.strategies.steps_file import Step, StepsError, blocked_by, load_steps, parse_steps
from kt_tui.store import Store

from ..conftest import EXAMPLES, ROOT
from ..helpers import run_cli
from ..llm_server import MODEL, ScriptedServer
from .test_autonomous import CACHES, SCRIPTED, replies

STEPS = SCRIPTED / "vector_add-steps.toml"
PLUGIN = ROOT / "tests" / "plugin"


def sim(*extra):
    return ("--backend", "sim", "--sim-cache", CACHES, *extra)


def test_the_library_covers_the_usual_optimizations_and_renders():
    from kt_tui.llm.prompts import rewrite_messages

    where, steps = load_steps()
    assert where == "library.toml"
    ids = [s.id for s in steps]
    for wanted in (
        "block_xy",
        "two_per_thread",
        "n_per_thread",
        "grid_stride",
        "tile_inputs",
        "tile_outputs",
        "register_tile_2d",
        "unroll",
        "vector_loads",
        "read_only",
        "prefetch_ilp",
    ):
        assert wanted in ids
    assert next(s for s in steps if s.id == "n_per_thread").depends_on == ["two_per_thread"]
    values = {
        "kernel_string": "__global__ void k() {}",
        "kernel_name": "k",
        "tune_params": {},
        "restrictions": [],
        "problem_size": "n",
        "gpu": "H200",
        "results": "-",
    }
    for s in steps:
        user = rewrite_messages(s.prompt, s.id, **values, step_params=s.tune_params)[1]["content"]
        assert "__global__ void k() {}" in user and '"kernel_code"' in user and "{" + "step_params}" not in user


GOOD = '[[step]]\nid = "a"\ntitle = "A"\nprompt = "do A to {kernel_string}"\n'


@pytest.mark.parametrize(
    "text, message",
    [
        (GOOD.replace("{kernel_string}", "{kernel}"), "steps.toml: step 'a'.prompt: must contain {kernel_string}"),
        (GOOD + "tune_params = { unroll = 4 }\n", "step 'a'.tune_params.unroll: must be a non-empty list"),
        (GOOD + "depends_on = ['b']\n", "step 'a'.depends_on: 'b' is not a step defined before this one"),
        (GOOD + "skip_evaluation = 'yes'\n", "step 'a'.skip_evaluation: must be true or false"),
        (GOOD + "promt = 'x'\n", "step 'a'.promt: unknown field"),
        (GOOD + GOOD, "step 'a'.id: used by an earlier step"),
        (GOOD.replace('title = "A"\n', ""), "step 'a'.title: required"),
        (GOOD.replace('id = "a"', 'id = "2nd"'), "step #1.id: required"),
        ("[[steps]]\n", "steps.toml: steps: unknown key"),
        ("[[step]\n", "steps.toml: not valid TOML"),
    ],
)
def test_a_broken_steps_file_names_the_step_and_the_field(text, message):
    with pytest.raises(StepsError) as e:
        parse_steps(text)
    assert message in str(e.value)


def test_a_broken_steps_file_exits_2_before_a_session_starts(capsys, tmp_path):
    bad = tmp_path / "steps.toml"
    bad.write_text(STEPS.read_text().replace('id = "float4"', 'id = "float4"\nskip_evaluation = 1'))
    code, out = run_cli(
        capsys, "run", EXAMPLES / "vector_add.cu", "--strategy", "explicit", "--steps", bad, "--auto", "--json", *sim()
    )
    assert code == 2 and out["session"] is None
    assert out["error"] == f"{bad}: step 'float4'.skip_evaluation: must be true or false, not 1"
    assert run_cli(capsys, "sessions", "--json")[1] == []
    code, out = run_cli(
        capsys,
        "run",
        EXAMPLES / "vector_add.cu",
        "--strategy",
        "explicit",
        "--steps",
        tmp_path / "missing.toml",
        "--auto",
        "--json",
        *sim(),
    )
    assert code == 2 and "cannot read the steps file" in out["error"]


def test_a_step_goes_on_only_when_its_dependencies_were_accepted():
    step = Step("c", "C", "{kernel_string}", depends_on=["a", "b"])
    assert blocked_by(step, {"a": "accepted", "b": "accepted"}) is None
    assert blocked_by(step, {"a": "accepted", "b": "rejected"}) == ("b", "rejected")
    assert blocked_by(step, {"a": "failed", "b": "accepted"}) == ("a", "failed")
    assert blocked_by(step, {"a": "accepted"}) == ("b", "not run")


def test_explicit_session_headless_follows_verdicts_and_dependencies(capsys, hermetic):
    with ScriptedServer(replies("vector_add-explicit")) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "explicit",
            "--steps",
            STEPS,
            "--auto",
            "--json",
            *sim("--base-url", server.url, "--model", MODEL),
        )
        assert not server.script
        prompts = [r["messages"][-1]["content"] for r in server.requests]
    assert code == 0 and out["state"] == "finished" and out["strategy"] == "explicit"
    states = {s["id"]: (s["state"], s["reason"]) for s in out["steps"]}
    assert [s["id"] for s in out["steps"]] == ["items", "float4", "block_xy", "tile_xy"]
    assert states["items"][0] == "accepted" and states["float4"][0] == "accepted"
    assert states["block_xy"] == ("skipped", "the LLM judged it not worth it: scripted: the problem is one-dimensional")
    assert states["tile_xy"] == ("skipped", "depends on block_xy, which was skipped")
    assert out["best"]["kernel_version"] == out["steps"][1]["version"] and out["speedup"] > 1.1
    # the step's own prompt, with its suggested parameters, then the shared reply rules
    assert "Let each thread add items_per_thread elements" in prompts[1]
    assert "Suggested values:\n  items_per_thread: [1, 2, 4, 8]" in prompts[1]
    assert "Reply with JSON only" in prompts[1]
    store = Store(hermetic / "sessions.db")
    stored = store.llm_result(out["session"], "explicit:steps")
    assert stored["text"] == str(STEPS) and [s["id"] for s in stored["value"]] == list(states)


def test_explicit_step_params_are_added_back_when_the_llm_drops_them(capsys, hermetic):
    script = replies("vector_add-explicit")[:2]
    rewrite = json.loads(script[1])
    rewrite["tune_params"].pop("items_per_thread")
    script[1] = json.dumps(rewrite)
    steps = hermetic / "one.toml"
    steps.write_text(STEPS.read_text().split('[[step]]\nid = "float4"')[0])
    with ScriptedServer(script) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "explicit",
            "--steps",
            steps,
            "--auto",
            "--json",
            *sim("--base-url", server.url, "--model", MODEL),
        )
    assert code == 0 and out["steps"][0]["state"] == "accepted"
    body = Store(hermetic / "sessions.db").gate(out["session"], "kernel:items").body
    assert body["tune_params"]["items_per_thread"] == [1, 2, 4, 8]
    assert "items_per_thread is used but was not declared: took the step's suggested values" in body["fixes"]


def test_one_prompt_session_headless(capsys, hermetic):
    with ScriptedServer(replies("matmul-one-prompt")) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "matmul.cu",
            "--strategy",
            "one-prompt",
            "--auto",
            "--json",
            *sim("--base-url", server.url, "--model", MODEL),
        )
        assert not server.script
        assert "in a single rewrite" in server.requests[0]["messages"][-1]["content"]
    assert code == 0 and out["strategy"] == "one-prompt"
    assert [(s["id"], s["state"]) for s in out["steps"]] == [("one-prompt", "accepted")]
    assert out["speedup"] > 2
    gate = Store(hermetic / "sessions.db").gate(out["session"], "kernel:one-prompt").body
    assert "renamed work_per_thread to WORK_PER_THREAD in the code" in gate["fixes"]


def test_headless_manual_mode_stops_where_someone_must_write_the_kernel(capsys):
    code, out = run_cli(
        capsys,
        "run",
        EXAMPLES / "vector_add.cu",
        "--strategy",
        "explicit",
        "--steps",
        STEPS,
        "--auto",
        "--json",
        *sim("--llm", "none"),
    )
    assert code == 1 and out["state"] == "waiting"  # for a human, not failed (issue 23)
    assert "Manual mode" in out["error"] and "--base-url" in out["error"]
    assert out["steps"][0]["state"] == "approved"
    code, rows = run_cli(capsys, "sessions", "--json")
    assert rows[0]["id"] == out["session"] and rows[0]["state"] == "waiting"
    code, out = run_cli(capsys, "resume", out["session"], "--auto", "--json", "--llm", "none")  # again headless
    assert code == 1 and out["state"] == "waiting"


def _engine(settings, kernel: Path, decide):
    """What `kt-tui run` sets up, with our own `decide` instead of the --auto policy."""
    from kt_tui.front.commands import make_engine, make_worker, open_store
    from kt_tui.front.session import load_kernel_spec, new_session, pick_backend, read_kernel_file
    from kt_tui.kernel.spec import version_ids

    kf = read_kernel_file(kernel)
    _, spec = load_kernel_spec(kf, None, None)
    store, gpu = open_store(settings), make_worker(settings)
    choice = pick_backend(settings, gpu, spec.kernel, version_ids(kf.source, spec), kf.path)
    sid = new_session(store, settings, kf, spec, choice)
    return make_engine(store, settings, sid, gpu, choice, decide, None), gpu


def test_manual_explicit_session_the_user_writes_the_kernel(tmp_path):
    """--llm none: no LLM call, no 'LLM call failed' gate; the kernel gate offers the current best
    kernel, the user's edit is checked, verified against the original and tuned."""
    from kt_tui.config import load_settings
    from kt_tui.engine.strategies.explicit import explicit

    steps = tmp_path / "steps.toml"
    steps.write_text(
        '[[step]]\nid = "tile"\ntitle = "Tile in shared memory"\nprompt = "{kernel_string}"\n'
        "tune_params = { block_size_x = [8, 16, 32] }\n"
        '[[step]]\nid = "more"\ntitle = "Something else"\nprompt = "{kernel_string}"\n'
    )
    tiled = (SCRIPTED / "matmul" / "tiled.cu").read_text()
    seen = []

    def decide(gate):
        seen.append(gate)
        if gate.key == "kernel:tile":
            assert gate.body["manual"] and "--base-url" in gate.body["manual"]
            assert gate.body["diff"] == ""  # the current best kernel, unchanged so far
            return Decision(
                "edit",
                {
                    "code": tiled,
                    "tune_params": {"block_size_x": [8, 16, 32], "block_size_y": [8, 16, 32]},
                    "restrictions": ["block_size_x == block_size_y"],
                },
            )
        return Decision("approve")

    settings = load_settings(
        {"backend": "sim", "sim_cache": str(CACHES), "llm": "none", "steps": str(steps), "strategy": "explicit"}
    )
    engine, gpu = _engine(settings, EXAMPLES / "matmul.cu", decide)
    try:
        assert engine.run(explicit) == "finished"
    finally:
        gpu.close()
    keys = [g.key for g in seen]
    assert keys == ["start", "step:tile", "kernel:tile", "kernel:tile:2", "accept:tile", "step:more", "kernel:more"]
    assert not any(g.kind.startswith("llm") for g in seen)
    assert seen[1].body["note"] == "no LLM: the step was not evaluated" and seen[1].body["verdict"] is None
    assert "__shared__" in seen[3].body["code"] and seen[3].body["compile"]["ok"] is not False
    steps_ = {s["id"]: s for s in engine.store.steps(engine.sid)}
    assert steps_["tile"]["state"] == "accepted"
    assert steps_["more"]["state"] == "skipped" and steps_["more"]["reason"] == "the kernel is unchanged"
    assert engine.store.session(engine.sid)["best_version"] == steps_["tile"]["version"]
    assert engine.store.llm_calls(engine.sid) == []


def test_a_plugin_strategy_is_found_through_its_entry_point(capsys, monkeypatch):
    from kt_tui.engine.registry import describe, registered

    assert "baseline-only" not in registered()
    monkeypatch.syspath_prepend(str(PLUGIN))
    assert list(registered())[:4] == ["sweep", "autonomous", "explicit", "one-prompt"]
    assert "baseline-only" in registered()
    assert describe("baseline-only") == "measure the original configuration once, nothing else"
    code, out = run_cli(
        capsys, "run", EXAMPLES / "vector_add.cu", "--strategy", "baseline-only", "--auto", "--json", "--backend", "sim"
    )
    assert code == 0 and out["state"] == "finished" and out["strategy"] == "baseline-only"
    assert out["results"] == 1 and out["baseline_ms"] is not None


def test_an_unknown_strategy_is_a_clear_error(capsys):
    code, out = run_cli(capsys, "run", EXAMPLES / "vector_add.cu", "--strategy", "nope", "--auto", "--json", *sim())
    assert code == 2 and "unknown strategy 'nope'" in out["error"] and "one-prompt" in out["error"]


def test_a_resumed_explicit_session_keeps_its_steps(capsys):
    script = replies("vector_add-explicit")
    with ScriptedServer(script[:2] + [{"status": 400, "message": "scripted refusal"}]) as server:
        code, out = run_cli(
            capsys,
            "run",
            EXAMPLES / "vector_add.cu",
            "--strategy",
            "explicit",
            "--steps",
            STEPS,
            "--auto",
            "--json",
            *sim("--base-url", server.url, "--model", MODEL),
        )
    assert code == 1 and out["state"] == "failed" and "validate_step" in out["error"]
    assert [s["state"] for s in out["steps"]] == ["accepted", "proposed", "proposed", "proposed"]
    with ScriptedServer(script[2:]) as server:  # no --steps now: the session's own steps are used
        code, out = run_cli(
            capsys, "resume", out["session"], "--auto", "--json", *sim("--base-url", server.url, "--model", MODEL)
        )
        assert not server.script
    assert code == 0 and [s["id"] for s in out["steps"]] == ["items", "float4", "block_xy", "tile_xy"]
    assert [s["state"] for s in out["steps"]] == ["accepted", "accepted", "skipped", "skipped"]
