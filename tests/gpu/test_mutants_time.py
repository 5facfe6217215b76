"""Issue 35 without a GPU: what bounds the mutants' seconds in a check (gpu/mutants.py, gpu/checkrun.py,
with stand-ins for the kernel runs and for the check's child). A mutant that hangs is stopped after
a limit from the original's own run at that size, and is counted as a hang; a child started again
after one hung goes on within the first child's budget, not a fresh one."""

import json
import sys
import time

import numpy as np
import pytest

from kt_tui.gpu import checkrun
from kt_tui.gpu import mutants as mutation
from kt_tui.gpu.mutation_score import score as mutation_score
from kt_tui.kernel.spec import parse_spec

SOURCE = "__global__ void twice(float *y, const float *x, int n) { int i = threadIdx.x; if (i < n) y[i] = 2 * x[i]; }"
SPEC = parse_spec("""kernel = "twice"
problem_size = ["n"]
[sizes]
n = 64
[tune_params]
block_size_x = [64]
[[args]]
name = "y"
type = "float32"
size = "n"
init = "poison"
output = true
[[args]]
name = "x"
type = "float32"
size = "n"
init = "normal"
[[args]]
name = "n"
type = "int32"
value = "n"
""")
CRASH, THRICE, PLUS = (SOURCE.replace("2 * x[i]", e) for e in ("x[i] / 0", "3 * x[i]", "2 + x[i]"))
MUTANTS = [
    {"id": f"m0{k}", "kind": "op", "what": what, "source": src}
    for k, (what, src) in enumerate([("crash", CRASH), ("`2` -> `3`", THRICE), ("`*` -> `+`", PLUS)], 1)
]


def run_with(ran):
    def run(s, source, params):
        from kt_tui.kernel.inputs import make_args

        ran.append(source)
        if source == CRASH:
            raise RuntimeError("an illegal address was encountered")
        args = dict(zip([a.name for a in s.args], make_args(s, s.sizes)))
        factor = {SOURCE: 2, THRICE: 3}.get(source)
        args["y"] = (args["x"] * factor if factor else args["x"] + 2).astype(np.float32)
        return args

    return run


def test_a_child_started_again_goes_on_within_the_first_childs_budget(tmp_path):
    job = {"token": "t", "source": SOURCE, "mutants": MUTANTS, "budget_s": 60, "sizes": [], "cases": []}
    before = time.time()
    with pytest.raises(mutation.Killed):
        mutation.child_runs(SPEC, job, tmp_path, run_with([]), lambda line: None)
    first = json.loads((tmp_path / mutation.DEADLINES).read_text())["mutants"]
    assert before + 60 <= first <= time.time() + 60  # the budget from the first child's start, however long it ran
    # the budget was spent by the mutant that crashed and the next child's start
    (tmp_path / mutation.DEADLINES).write_text(json.dumps({"mutants": time.time() - 1}))
    ran: list[str] = []
    mutation.child_runs(SPEC, job, tmp_path, run_with(ran), lambda line: None)
    assert THRICE not in ran and PLUS not in ran  # a fresh budget would have run them
    score = mutation_score(MUTANTS, mutation.read_jsonl(tmp_path / mutation.RECORDS), [], {})
    assert score["not_run"] == ["`2` -> `3`", "`*` -> `+`"]
    assert score["line"] == "the check catches 1 of 1 wrong variant (2 more not run within the time budget)"


def test_a_child_started_again_is_not_charged_its_start_up_nor_its_runs_of_the_original(tmp_path):
    job = {"token": "t", "source": SOURCE, "mutants": MUTANTS, "budget_s": 60, "sizes": [], "cases": []}
    with pytest.raises(mutation.Killed):
        mutation.child_runs(SPEC, job, tmp_path, run_with([]), lambda line: None)
    # 0.5 s of the budget left when the next child started: its 20 s of python, kernel_tuner and a CUDA
    # context, and its run of the original (made slow here), are its own, not the mutants'
    (tmp_path / mutation.DEADLINES).write_text(json.dumps({"mutants": time.time() + 0.5}))
    ran: list[str] = []
    slow = run_with(ran)

    def run(s, source, params):
        if source == SOURCE:
            time.sleep(0.6)
        return slow(s, source, params)

    mutation.child_runs(SPEC, dict(job, child_up=time.monotonic() - 20), tmp_path, run, lambda line: None)
    assert THRICE in ran and PLUS in ran
    score = mutation_score(MUTANTS, mutation.read_jsonl(tmp_path / mutation.RECORDS), [], {})
    assert score["not_run"] == [] and score["killed"] == 3


def test_a_mutants_run_is_held_to_the_originals_time_when_its_kernel_is_compiled(tmp_path):
    job = {"token": "t", "source": SOURCE, "mutants": MUTANTS[1:], "budget_s": 60, "sizes": [], "cases": []}
    said: list[str] = []
    compiled = {THRICE}  # PLUS still compiling: its run's time would hold its compile
    mutation.child_runs(SPEC, job, tmp_path, run_with([]), said.append, ready=lambda s, src, p: src in compiled)
    marks = [line for line in said if line.startswith(mutation.MARK)]
    assert marks[0] == f"{mutation.MARK} t 5 original - base -"
    assert f"{mutation.MARK} t {mutation.HANG_FLOOR_S:g} mutant m02 base -" in marks  # 20 x a fast run, at least 1 s
    assert f"{mutation.MARK} t {mutation.HANG_S:g} mutant m03 base -" in marks
    assert mutation.hang_limit(0.01) == 1.0 and mutation.hang_limit(0.1) == 2.0 and mutation.hang_limit(3) == 5.0


CHILD = """import sys, time
print("kt-tui: running t 0.2 mutant m07 base -", flush=True)
time.sleep(30)
"""


def test_the_parent_stops_a_hanging_mutant_at_the_childs_limit_and_counts_it_a_hang(tmp_path):
    cmd = [sys.executable, "-c", CHILD]
    started = time.monotonic()
    proc = checkrun._start(cmd, {}, tmp_path)
    error, running = checkrun._one_child(proc, "t", started + 60, 60, lambda: None, lambda n: 0)
    assert error == f"{mutation.HANGS} {mutation.HANG_FLOOR_S:g} s"  # 0.2 s asked, the floor given
    assert running == ["mutant", "m07", "base", "-"]
    checkrun._record_lost(tmp_path, running, error)
    checkrun._record_lost(tmp_path, ["original", "-", "base", "n=21"], error)  # the original's run kills nothing
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    assert records == [{"id": "m07", "case": None, "killed": True, "how": "hangs: stopped after 1 s"}]
    mutants = [{"id": "m07", "kind": "bound", "what": "`>` -> `>=`", "source": ""}]
    score = mutation_score(mutants, records, [], {})
    assert score["hangs"] == ["m07"]
    assert score["line"] == "the check catches 1 of 1 wrong variant (1 of them hangs)"
