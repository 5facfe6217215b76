"""Issue 35 without a GPU: a check whose own inputs make it too slow to run its wrong variants says so
and blames the spec with numbers (gpu/unrun.py): the check's child records the original's run at each
size (gpu/mutants.py), the score carries `unrun`, and `spec --check` says it. Stand-ins for the kernel
runs and for the check's child; a kernel written for the test."""

import json
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from kt_tui.engine.strength import score_line, survivors_why, too_few_run
from kt_tui.gpu import checkrun
from kt_tui.gpu import mutants as mutation
from kt_tui.gpu.mutation_score import score as mutation_score
from kt_tui.gpu.sanitize import SanitizeReport
from kt_tui.kernel.mutant import mutants
from kt_tui.kernel.spec import parse_spec

from ..conftest import KERNELS

ROUNDS = (KERNELS / "rounds.cu").read_text()  # a loop of nrounds hash steps a thread: its count sets each run's time
SPEC = parse_spec("""kernel = "rounds"
problem_size = ["n"]
verify_sizes = [{n = 37}]
[sizes]
n = 1000000
[tune_params]
block_size_x = [256]
[[args]]
name = "keys"
type = "uint32"
size = "n"
[[args]]
name = "n"
type = "int32"
value = "n"
[[args]]
name = "nrounds"
type = "int32"
value = 100
[[args]]
name = "out"
type = "uint32"
size = "n"
output = true
""")
MUTANTS = [{"id": f"m{k:02}", "kind": "op", "what": f"variant {k}", "source": f"{ROUNDS}// {k}"} for k in range(29)]


def rounds(keys, nrounds):
    h = keys.astype(np.uint64)
    for k in range(nrounds):
        h = (h * 2654435761 + k) % (1 << 32)
    return h.astype(np.uint32)


def paced(clock, per_element_round_s):
    """A run: the kernel on the spec's inputs, costing (fake) seconds by its size times its rounds; each
    variant passes the small size and fails the spec's (so it runs at both, as most did on the H100)."""
    from kt_tui.kernel.inputs import make_args

    def run(s, source, params):
        args = dict(zip([a.name for a in s.args], make_args(s, s.sizes)))
        clock[0] += per_element_round_s * s.sizes["n"] * 100
        args["out"] = rounds(args["keys"][: s.sizes["n"]], 3)  # the emulation's own rounds: cheap here
        if source != ROUNDS and s.sizes["n"] == SPEC.sizes["n"]:
            args["out"] = args["out"] + np.uint32(1)
        return args

    return run


def _child(tmp_path, monkeypatch, per_element_round_s):
    clock = [1000.0]
    monkeypatch.setattr(mutation.time, "monotonic", lambda: clock[0])
    job = {"token": "t", "source": ROUNDS, "mutants": MUTANTS, "budget_s": 5.0, "sizes": SPEC.extra_sizes()}
    mutation.child_runs(SPEC, {**job, "cases": []}, tmp_path, paced(clock, per_element_round_s), lambda line: None)
    return mutation.all_records(tmp_path)


def test_the_child_records_the_originals_runs_and_a_slow_spec_is_blamed_with_its_numbers(tmp_path, monkeypatch):
    records = _child(tmp_path, monkeypatch, 4.1e-9)  # 0.41 s a run at n = 1000000, 15 us at n = 37
    originals = mutation.read_jsonl(tmp_path / mutation.ORIGINALS)
    assert [(r["original"], r["sizes"]["n"]) for r in originals] == [("n=37", 37), ("", 1000000)]
    assert originals[1]["bytes"] == 8000000 and 0.40 < originals[1]["seconds"] < 0.42
    score = mutation_score(MUTANTS, records, [], {}, original=(ROUNDS, SPEC))
    flag = score["unrun"]
    # every variant ran at n = 37; at the spec's size the budget held 13 of them
    assert flag["ran"] == score["counted"] == 13 and flag["made"] == 29 and flag["not_run"] == 16
    assert flag["over"] and flag["slow_runs"] and flag["need_s"] == 11.9
    assert [(r["at"], r["ms"]) for r in flag["runs"]] == [("n=37", 0.015), ("the spec's size", 410.0)]
    assert flag["scalars"] == [
        {"name": "n", "value": 1000000, "guess": False, "loop": False},  # `i >= n` bounds no loop
        {"name": "nrounds", "value": 100, "guess": True, "loop": True},
    ]
    assert flag["text"] == (
        "the check ran 13 of 29 wrong variants in its 5 s (16 not run: unknown, not killed): one run of the "
        "original takes 410 ms at the spec's size (n = 1000000; nrounds = 100 — the draft guesses it, bounds a "
        "loop; 8 MB of arrays) and 0.015 ms at n=37; running them all would take about 11.9 s: smaller check "
        "sizes or scalars would let it run them all"
    )
    state = {"state": "ok", "mutants": score}
    assert score_line(state) == (
        "the check catches 13 of 13 wrong variants (16 more not run within the time budget); TOO FEW RUN: "
        + flag["text"]
    )
    why = survivors_why(state)  # no survivor: --auto refuses for the unrun alone, and says so
    assert why.startswith(flag["text"] + "; a kernel with the mistake of one not run would be kept unseen")
    assert why.endswith("--allow-survivors (or allow_survivors = true) lets --auto accept it")


def test_a_few_unrun_stay_quiet_apart_from_the_count(tmp_path, monkeypatch):
    records = _child(tmp_path, monkeypatch, 1.9e-9)  # 0.19 s a run at the spec's size: 27 of 29 run in 5 s
    score = mutation_score(MUTANTS, records, [], {}, original=(ROUNDS, SPEC))
    flag = score["unrun"]
    assert (flag["ran"], flag["not_run"], flag["over"], flag["scalars"]) == (27, 2, False, [])
    state = {"state": "ok", "mutants": score}
    assert too_few_run(state) is None and survivors_why(state) is None
    assert score_line(state) == score["line"] and "not run within the time budget" in score["line"]


def test_quick_runs_of_the_original_do_not_blame_the_spec():
    ran = [{"id": m["id"], "case": None, "killed": True, "how": "hangs: stopped after 5 s"} for m in MUTANTS[:3]]
    originals = [{"original": "", "seconds": 0.002, "sizes": {"n": 1000}, "bytes": 8000}]
    flag = mutation_score(MUTANTS, ran + originals, [], {})["unrun"]
    assert flag["over"] and not flag["slow_runs"] and flag["need_s"] == 0.1
    assert flag["text"] == (
        "the check ran 3 of 29 wrong variants in its 5 s (26 not run: unknown, not killed); one run of the "
        "original takes 2 ms at the spec's size (n = 1000) (about 0.1 s for them all): the time went to the "
        "mutants' compiles, hangs or restarts, not to the spec's sizes"
    )
    assert mutation_score(MUTANTS[:3], ran + originals, [], {})["unrun"] is None  # every one ran


def test_check_strength_carries_the_flag_and_spec_check_says_it(tmp_path, monkeypatch, capsys):
    made = mutants(ROUNDS, "rounds")

    def child(job, out, timeout_s, gpu_done=None, on_survivors=None):
        s = checkrun.spec_from_plain(job["spec"])
        from kt_tui.kernel.inputs import make_args

        before = {a.name: v for a, v in zip(s.args, make_args(s, s.sizes)) if a.is_array}
        orig = {**before, "out": rounds(before["keys"], 100)}
        (out / "state.json").write_text(json.dumps(checkrun.judge(s, {"before": before, "original": orig}, [], [])))
        for m in job["mutants"][:4]:
            mutation.append(out / mutation.RECORDS, {"id": m["id"], "case": None, "killed": True, "how": "x", "at": ""})
        for label, seconds in (("n=37", 0.0001), ("", 0.9)):
            sizes = {"n": 37 if label else 1000000}
            mutation.append(out / mutation.ORIGINALS, {"original": label, "seconds": seconds, "sizes": sizes})
        on_survivors(0)
        gpu_done()
        return ""

    def sanitizer(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=(), cases=()):
        return SanitizeReport(tool, True, 0, sizes=sizes)

    state = checkrun.check_strength(ROUNDS, SPEC, "cupy", sanitizer=sanitizer, child=child)
    flag = state["mutants"]["unrun"]
    assert flag["ran"] == 4 and flag["not_run"] == len(made) - 4 - len(state["mutants"]["equivalent"])
    assert flag["over"] and flag["slow_runs"]
    assert {"name": "nrounds", "value": 100, "guess": True, "loop": True} in flag["scalars"]

    from kt_tui.front import spec_cmd

    monkeypatch.setattr(spec_cmd, "gpu_backend", lambda *a, **k: ("cupy", ""))
    monkeypatch.setattr(spec_cmd.checkrun, "check_strength", lambda *a, **k: state)
    said = spec_cmd.test_check(SimpleNamespace(backend=None), SimpleNamespace(source=ROUNDS, path="k.cu"), SPEC)
    assert f"; TOO FEW RUN: the check ran 4 of {flag['made']} wrong variants in its 5 s" in said
    assert "nrounds = 100 — the draft guesses it, bounds a loop" in said


def test_more_than_a_third_unrun_is_over():
    from kt_tui.gpu.unrun import unrun

    ran = [{"id": f"m{k}", "killed": True, "at": ""} for k in range(20)]
    runs = [{"original": "", "seconds": 0.3, "sizes": {"n": 1}}]
    assert not unrun(ran, 10, runs, 5.0)["over"] and unrun(ran[:19], 11, runs, 5.0)["over"]


@pytest.mark.gpu
def test_on_a_gpu_a_loop_count_that_makes_each_run_a_second_is_blamed_by_name():
    # ~4 cycles a round, one chain per thread: about 1 s a run at either size; 14 mutants, 5 s
    slow = replace(SPEC, sizes={"n": 4096}, verify_sizes=[{"n": 37}])
    slow.args = [replace(a, value=500_000_000) if a.name == "nrounds" else a for a in SPEC.args]
    state = checkrun.check_strength(ROUNDS, slow, "pycuda")
    flag = state["mutants"]["unrun"]
    assert flag is not None and flag["over"] and flag["slow_runs"], state["mutants"]["line"]
    # the cheapest size first: at ~1 s a run the budget may end before the spec's size runs at all
    # (H100, session 18: only n=37 ran), and the one run is enough to blame the loop count
    assert [r["at"] for r in flag["runs"]][:1] == ["n=37"]
    assert {"name": "nrounds", "value": 500_000_000, "guess": True, "loop": True} in flag["scalars"]
    assert "smaller check sizes or scalars would let it run them all" in flag["text"]


def test_the_text_stays_short_with_many_sizes_and_long_labels():
    from kt_tui.gpu.unrun import unrun

    names = [f"s{k}" for k in range(500)]  # a spec of 500 scalars: every check size's label names them all
    ran = [{"id": f"m{k}", "killed": True, "at": ""} for k in range(3)]
    runs = [{"original": "", "seconds": 2.0, "sizes": dict.fromkeys(names, 7)}]
    for j in range(40):
        label = ", ".join(f"{n}={j + 1}" for n in names)
        runs.append({"original": label, "seconds": 0.001 * (j + 1), "sizes": dict.fromkeys(names, j + 1)})
    flag = unrun(ran, 27, runs, 5.0)
    assert flag["over"] and flag["text"].startswith("the check ran 3 of 30 wrong variants in its 5 s")
    assert "2 s at the spec's size" in flag["text"] and len(flag["text"]) < 1200
