"""The check's child waits VERDICT_S for memcheck's verdict on the cases that killed at the check sizes
(gpu/mutants.py wait_verdict); when it comes later, the survivors a refused case leaves are not run at
the spec's size, and the score says how many (gpu/mutation_score.py), so a low score carries its reason.
No GPU: the kernel's runs, the sanitizer and the verdict's writer are stand-ins."""

import threading

from kt_tui.gpu import checkrun
from kt_tui.gpu import mutants as mutation
from kt_tui.gpu.mutation_score import score as mutation_score
from kt_tui.kernel.strengthen import case_spec, cheap_first

from .test_mutants import KERNEL, MUTANTS, SPEC, _emptied, _job, generated, stand_in
from .test_strengthen_order import SEED, WIDE, WIDE_SMALL, case_sanitizer, fake_child

REFUSED = {WIDE_SMALL: "memcheck: out of bounds", SEED["label"]: ""}


def _child(tmp_path, write_first: bool):
    job = _job(cases=cheap_first(SPEC, [SEED, WIDE]), verdict=True)
    if write_first:
        mutation.write_verdict(tmp_path, REFUSED)
    mutation.child_runs(SPEC, job, tmp_path, stand_in(_emptied), lambda line: None)
    if not write_first:  # the parent's memcheck finished after the child stopped waiting
        mutation.write_verdict(tmp_path, REFUSED)
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    return records, mutation_score(MUTANTS, records, mutation.read_jsonl(tmp_path / mutation.CASES), REFUSED)


def test_a_verdict_past_the_wait_leaves_survivors_not_retried_and_the_score_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(mutation, "VERDICT_S", 0.05)
    records, score = _child(tmp_path, write_first=False)
    assert not {r["id"] for r in records if r["case"] == WIDE["label"]} & {"m01", "m02"}  # not run at the spec's size
    assert score["unretried"] == 2 and {s["id"] for s in score["survivors"]} >= {"m01", "m02"}
    line = score["line"]
    assert "2 survivors not retried at the spec's size: memcheck had not finished" in line, line  # before: silent


def test_a_verdict_in_time_retries_them_and_says_nothing_of_it(tmp_path):
    records, score = _child(tmp_path, write_first=True)
    assert {r["id"] for r in records if r["case"] == WIDE["label"]} >= {"m01", "m02"}
    assert score["unretried"] == 0 and "not retried" not in score["line"]


def test_spec_check_says_the_survivors_memcheck_was_too_slow_to_free(monkeypatch):
    # the cases' memcheck ends only once the child's runs did: its verdict always comes too late
    monkeypatch.setattr(mutation, "VERDICT_S", 0.05)
    small = case_spec(SPEC, {"label": WIDE_SMALL, "sizes": {"size": 37}, "args": WIDE["args"]})
    child_done, refuse = threading.Event(), case_sanitizer([], illegal=[small])

    def sanitizer(source, spec, *a, **k):
        if k.get("cases") or spec is not SPEC:
            child_done.wait(30)
        return refuse(source, spec, *a, **k)

    inner = fake_child(stand_in(generated))

    def child(job, out, timeout_s, gpu_done=None, on_survivors=None):
        try:
            return inner(job, out, timeout_s, gpu_done, on_survivors)
        finally:
            child_done.set()

    state = checkrun.check_strength(KERNEL, SPEC, "cupy", sanitizer=sanitizer, child=child)
    score = state["mutants"]
    assert score["unretried"] == 2 and len(score["survivors"]) == 2, score
    assert "2 survivors not retried at the spec's size: memcheck had not finished" in score["line"], score["line"]
