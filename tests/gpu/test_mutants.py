"""Issue 35 items 1, 2 and 4 without a GPU: the check child's mutant runs (gpu/mutants.py) with a
stand-in for the kernel runs, the score, a mutant that hangs costing itself, and the spec blamed
from the original's own runs (their compiles: tests/gpu/test_mutants_compile.py).
tests/gpu/test_mutants_gpu.py runs the same on a GPU."""

import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kt_tui.engine.strength import survivor_text, tried_text
from kt_tui.gpu import checkrun, memcheck
from kt_tui.gpu import mutants as mutation
from kt_tui.gpu.mutation_score import score as mutation_score
from kt_tui.gpu.sanitize import SanitizeReport
from kt_tui.kernel.mutant import REVERSE_BLOCKS, blocks_reversed, mutants
from kt_tui.kernel.spec import load_spec, parse_spec
from kt_tui.kernel.strengthen import candidates, case_spec

from ..kernel.test_mutants import HIST, HISTOGRAM, SPMV, SPMV_SPEC, VARIED

SPEC = parse_spec(HISTOGRAM)
KERNEL = HIST
N = SPEC.sizes["size"]


def stand_in(kernel_of):
    """A run: the arrays after `kernel_of(source)` ran on the spec's inputs at its sizes."""

    def run(s, source, params):
        from kt_tui.kernel.inputs import make_args

        args = dict(zip([a.name for a in s.args], make_args(s, s.sizes)))
        args["hist"] = kernel_of(source)(args["data"], int(args["size"]))
        return args

    return run


def right(data, n):
    return np.bincount(data[:n], minlength=256).astype(np.uint32)


def behaviour(source):
    if "// & 0x7f" in source:  # a masked byte: wrong only for bytes over 127
        return lambda d, n: right(d & 0x7F, n)
    if "// signed char" in source:
        return lambda d, n: right(np.where(d > 127, 0, d).astype(np.uint8), n)
    if "// i <= size" in source:
        return right  # reads one past the end: the same outputs here
    if "// size / 2" in source:
        return lambda d, n: right(d, n // 2)
    if "crash" in source:
        raise RuntimeError("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access")
    return right


MUTANTS = [
    {"id": "m00", "kind": "nothing", "what": "emptied", "source": "/* emptied */"},
    {"id": "m01", "kind": "mask", "what": "masked", "source": KERNEL + "// & 0x7f"},
    {"id": "m02", "kind": "type", "what": "signed", "source": KERNEL + "// signed char"},
    {"id": "m03", "kind": "bound", "what": "i <= size", "source": KERNEL + "// i <= size"},
    {"id": "m04", "kind": "half", "what": "half", "source": KERNEL + "// size / 2"},
]


def _emptied(source):
    return (lambda d, n: np.zeros(256, np.uint32)) if "emptied" in source else behaviour(source)


def _job(**more):
    full = {"token": "t0", "source": KERNEL, "mutants": MUTANTS, "budget_s": 60, "strengthen_s": 60}
    full["sizes"] = [{"label": "size=37", "sizes": {"size": 37}}]
    full["cases"] = [
        {"label": "`data` over all 256 values of uint8", "sizes": {}, "args": {"data": {"low": 0, "high": 256}}},
        {"label": "a second seed", "sizes": {}, "args": {"data": {"seed": 1001}}},
    ]
    return {**full, **more}


def test_mutants_run_at_every_size_and_the_survivors_on_stronger_inputs(tmp_path):
    said = []
    mutation.child_runs(SPEC, _job(), tmp_path, stand_in(_emptied), said.append)
    records = {(r["id"], r["case"]): r for r in mutation.read_jsonl(tmp_path / mutation.RECORDS)}
    assert records["m00", None]["killed"] and records["m04", None]["killed"]  # caught at the spec's size
    for mid in ("m01", "m02", "m03"):  # bytes 0-99 cannot tell these from the original
        assert not records[mid, None]["killed"]
    full = "`data` over all 256 values of uint8"
    assert records["m01", full]["killed"] and records["m02", full]["killed"]
    assert "hist[" in records["m01", full]["how"] and not records["m03", full]["killed"]
    assert f"{mutation.SURVIVORS} t0 3" in said
    assert f"{mutation.MARK} t0 {mutation.HANG_S:g} mutant m01 case {full}" in said
    cases = mutation.read_jsonl(tmp_path / mutation.CASES)
    assert [c["ok"] for c in cases] == [True, True]

    score = mutation_score(MUTANTS, list(records.values()), cases, {c["label"]: "" for c in cases})
    assert (score["counted"], score["killed_before"], score["killed"]) == (5, 2, 4)
    assert score["kept"] == [full] and score["strengthening"][1]["why"] == "kills no survivor"
    assert score["line"] == "the check catches 4 of 5 wrong variants; this one survives: i <= size"
    assert survivor_text(score["survivors"][0]) == "a kernel with i <= size would pass this check"


def spmv_warp(s, source, params):
    """The warp-per-row SpMV of tests/kernel/test_mutants.py on the spec's inputs, its lanes followed:
    a row's element d goes to lane d % stride (missed where that is a 33rd lane), and the shuffle
    ladder from `start` leaves lane 0 the sum of lanes below 2 * start."""
    from kt_tui.kernel.inputs import make_args

    start = 8 if "offset = (16) / 2" in source else 16
    stride = 33 if "jj += 33" in source else 32
    args = dict(zip([a.name for a in s.args], make_args(s, s.sizes)))
    ptr, rows = args["ptr"].astype(np.int64), int(args["num_rows"])
    lengths = np.maximum(ptr[1 : rows + 1] - ptr[:rows], 0)
    row = np.repeat(np.arange(rows), lengths)
    d = np.arange(row.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    jj = ptr[row] + d
    keep = d % stride < min(32, 2 * start)
    terms = (args["data"][jj] * args["x"][args["indices"][jj]])[keep]
    args["y"] = (args["y"] + np.bincount(row[keep], weights=terms, minlength=rows)).astype(np.float32)
    return args


def test_rows_of_one_nonzero_pass_half_a_warp_reduction_and_rows_of_varied_lengths_kill_it(tmp_path):
    spec = parse_spec(SPMV_SPEC)
    made = mutants(SPMV, "spmv_csr_vector")
    half = next(m for m in made if "loop start `16` halved" in m.what)
    wide = next(m for m in made if "`32` -> `33` in `for (int jj" in m.what)
    wrong = [mutation.job_entry(m) for m in (half, wide)]
    job = {"token": "t1", "source": SPMV, "mutants": wrong, "budget_s": 60, "strengthen_s": 60}
    job["cases"] = candidates(spec)
    mutation.child_runs(spec, job, tmp_path, spmv_warp, lambda line: None)
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    cases = mutation.read_jsonl(tmp_path / mutation.CASES)
    score = mutation_score(wrong, records, cases, {c["label"]: "" for c in cases})
    assert (score["counted"], score["killed_before"], score["killed"]) == (2, 0, 2)  # one nonzero per row: both pass
    assert score["kept"] == [VARIED] and score["survivors"] == []
    assert score["strengthening"][0] == {"label": VARIED, "kept": True, "why": f"kills {half.id}, {wide.id}"}


def test_a_case_memcheck_refuses_is_not_kept_and_equivalent_or_stillborn_mutants_do_not_count(tmp_path):
    mutation.child_runs(SPEC, _job(), tmp_path, stand_in(_emptied), lambda line: None)
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    cases = mutation.read_jsonl(tmp_path / mutation.CASES)
    full = "`data` over all 256 values of uint8"
    legal = {full: "memcheck: out of bounds", "a second seed": ""}
    sorted_ = {"m03": ("equivalent", "compiles to the same code as the original (sm_90)"), "m04": ("stillborn", "x")}
    records = [r for r in records if r["id"] not in sorted_]
    records += [{"id": i, "case": None, "killed": False, "how": why, "class": c} for i, (c, why) in sorted_.items()]
    score = mutation_score(MUTANTS, records, cases, legal)
    assert (score["counted"], score["killed_before"], score["killed"]) == (3, 1, 1)
    assert score["kept"] == [] and score["strengthening"][0] == {"label": full, "kept": False, "why": legal[full]}
    assert score["equivalent"] == ["i <= size: compiles to the same code as the original (sm_90)"]
    assert score["line"].startswith("the check catches 1 of 3 wrong variants; these 2 survive: masked; signed")


def test_a_failing_mutant_is_killed_and_ends_the_child_whose_context_it_may_have_lost(tmp_path):
    job = _job(mutants=[*MUTANTS[:2], {"id": "m09", "kind": "index", "what": "crashes", "source": "crash"}])
    with pytest.raises(mutation.Killed):
        mutation.child_runs(SPEC, job, tmp_path, stand_in(_emptied), lambda line: None)
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    assert (
        records[-1]
        == {
            "id": "m09",
            "case": None,
            "killed": True,
            "how": "fails at size=37: RuntimeError: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access",  # the cheapest size first
        }
    )
    said = []
    mutation.child_runs(SPEC, job, tmp_path, stand_in(_emptied), said.append)  # the next child goes on
    assert not any("mutant m00" in s or "mutant m09 base" in s for s in said)  # nothing run twice


def _first_child_hangs(monkeypatch, tmp_path, first_line):
    """run_child with a first child that says `first_line` and hangs, and a second that ends: the children."""
    monkeypatch.setattr(mutation, "HANG_S", 0.3)
    started = []

    class Proc:
        def __init__(self, cmd, **kw):
            self.token = json.loads(Path(cmd[-2]).read_text())["token"]
            self.first = not started
            started.append(self)
            self.returncode = None
            self.stdout = iter([first_line.format(token=self.token)] if self.first else [])

        def wait(self, timeout=None):
            if self.first and self.returncode is None:
                import subprocess

                time.sleep(timeout or 0)
                raise subprocess.TimeoutExpired("child", timeout)
            self.returncode = self.returncode if self.returncode is not None else 0
            return self.returncode

    monkeypatch.setattr(checkrun.subprocess, "Popen", Proc)
    monkeypatch.setattr(checkrun, "kill_group", lambda proc: setattr(proc, "returncode", -9))
    assert checkrun.run_child({"runs": []}, tmp_path, 30) == ""
    return started


def test_a_mutant_that_hangs_costs_itself_and_another_child_goes_on(monkeypatch, tmp_path):
    started = _first_child_hangs(monkeypatch, tmp_path, f"{mutation.MARK} {{token}} 0.3 mutant m03 base -\n")
    assert len(started) == 2
    assert mutation.read_jsonl(tmp_path / mutation.RECORDS) == [
        {"id": "m03", "case": None, "killed": True, "how": "hangs: stopped after 0.3 s"}
    ]


def test_the_seconds_a_mutant_hung_do_not_take_the_next_childs_budget(tmp_path):
    """A child started again after a hang goes on with the mutants left, though the hang used the
    budget's seconds: the deadline the first child set has passed."""
    mutation.append(
        tmp_path / mutation.RECORDS, {"id": "m03", "case": None, "killed": True, "how": "hangs: stopped after 5 s"}
    )
    (tmp_path / mutation.DEADLINES).write_text(json.dumps({"mutants": time.time() - 2.0}))
    mutation.child_runs(
        SPEC, _job(budget_s=5, strengthen_s=0, cases=[]), tmp_path, stand_in(_emptied), lambda line: None
    )
    ran = {r["id"] for r in mutation.read_jsonl(tmp_path / mutation.RECORDS)}
    assert ran == {"m00", "m01", "m02", "m03", "m04"}
    assert mutation.hung_seconds({"how": "hangs: stopped after 9 s"}) == mutation.HANG_S  # what a printf says: at most
    assert mutation.hung_seconds({"how": "fails: CUDA error"}) == 0.0


def test_the_hang_credit_is_spent_once_not_again_in_each_later_phase(tmp_path):
    mutation.append(
        tmp_path / mutation.RECORDS, {"id": "m04", "case": None, "killed": True, "how": "hangs: stopped after 5 s"}
    )
    now = time.time()
    (tmp_path / mutation.DEADLINES).write_text(json.dumps({"mutants": now + 30.0, "geometry": now - 1.0}))
    other = {**SPEC.baseline_params(), "block_size_x": 2 * SPEC.baseline_params()["block_size_x"]}
    job = _job(strengthen_s=0, cases=[], geometry=other)
    ran, run = [], stand_in(_emptied)

    def counted(s, source, params):
        ran.append(params == other)
        return run(s, source, params)

    mutation.child_runs(SPEC, job, tmp_path, counted, lambda line: None)
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    assert {r["id"] for r in records if r.get("case") is None} == {"m00", "m01", "m02", "m03", "m04"}
    assert ran and not any(ran)  # the other block size's phase was past its deadline: the hang was credited already


def test_a_mark_after_a_kernels_printf_with_no_newline_is_still_read(monkeypatch, tmp_path):
    _first_child_hangs(monkeypatch, tmp_path, f"x = 1.5{mutation.MARK} {{token}} 0.3 mutant m05 base -\n")
    assert mutation.read_jsonl(tmp_path / mutation.RECORDS) == [
        {"id": "m05", "case": None, "killed": True, "how": "hangs: stopped after 0.3 s"}
    ]


def generated(source):
    """How the mutants kernel/mutant.py makes of KERNEL behave: all wrong everywhere but two."""
    if source == KERNEL:
        return right
    if "(data[i] & 0x7f)" in source:
        return lambda d, n: right(d & 0x7F, n)
    if "const signed char *data" in source:
        return lambda d, n: right(np.where(d > 127, 0, d).astype(np.uint8), n)
    return lambda d, n: right(d, n) + 1


def test_survivors_memcheck_finds_out_of_bounds_are_killed_as_an_llm_kernel_would_be(tmp_path, monkeypatch):
    monkeypatch.setattr(checkrun, "candidates", lambda spec, source: [])  # no stronger inputs: survivors stay

    def child(job, out, timeout_s, gpu_done=None, on_survivors=None):
        s = checkrun.spec_from_plain(job["spec"])
        from kt_tui.kernel.inputs import make_args

        before = {a.name: v for a, v in zip(s.args, make_args(s, s.sizes)) if a.is_array}
        orig = {**before, "hist": right(before["data"], N)}
        (out / "state.json").write_text(json.dumps(checkrun.judge(s, {"before": before, "original": orig}, [], [])))
        mutation.child_runs(s, job, out, stand_in(generated), lambda line: None)
        gpu_done()
        return ""

    seen = []

    def sanitizer(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=(), cases=()):
        seen.append((source, params, [sizes, *more]))
        if source == KERNEL:
            return SanitizeReport(tool, True, 0, sizes=sizes)
        text = "========= Invalid __global__ read of size 4 bytes\n=========     at histogram256+0x70\n"
        return SanitizeReport(tool, False, 1, text=text, sizes=sizes)

    state = checkrun.check_strength(KERNEL, SPEC, "cupy", sanitizer=sanitizer, child=child)
    score = state["mutants"]
    assert score["killed_before"] == score["counted"] - 2 and score["killed"] == score["counted"]
    assert score["strengthening"][-1]["label"] == "memcheck on the survivors"
    assert tried_text(score["strengthening"][-1]).startswith("memcheck on the survivors: kills m")
    caught = score["strengthening"][-1]["why"].removeprefix("kills ").split(", ")
    assert len(caught) == 2 and all(score["killed_how"][i].startswith(f"memcheck: mutant {i} accesses") for i in caught)
    ran = [(p, more) for src, p, more in seen if src != KERNEL]
    assert len(ran) == 2 and all(p == SPEC.baseline_params() for p, _ in ran)
    edge = memcheck.one_idle_thread(SPEC, {"size": 37})  # the last block with one thread past the end
    assert edge is not None and (edge["size"] + 1) % SPEC.baseline_params()["block_size_x"] == 0
    assert all(every == [*(e["sizes"] for e in SPEC.extra_sizes()), edge] for _, every in ran)  # not the spec's


def test_a_survivor_memcheck_finds_clean_or_cannot_run_stays_a_survivor():
    made = [{"id": "m1", "source": "a"}, {"id": "m2", "source": "b"}, {"id": "m3", "source": "c"}]
    reports = {"a": True, "b": None, "c": False}

    def sanitizer(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=()):
        return SanitizeReport(tool, reports[source], 0 if reports[source] else 1, text="Invalid __global__ write")

    found = memcheck.memcheck_survivors(made, [{"id": "m1"}, {"id": "m2"}, {"id": "m3"}], SPEC, "cupy", sanitizer)
    assert list(found) == ["m3"] and found["m3"].startswith("memcheck: ")
    assert memcheck.memcheck_survivors(made, [], SPEC, "cupy", sanitizer) == {}


def test_survivors_memcheck_also_runs_where_the_last_block_has_one_thread_past_the_end():
    # conv1d_tile's halo load `k <= n + TAPS - 1` reads x[n + 6] only where the last block's halo
    # starts within 6 of n: at n = 255 (blocks of 256), not at its check sizes 333333 and 37
    conv = load_spec(Path(__file__).parents[1] / "corpus" / "specs" / "conv1d_tile.cu.toml")
    seen = []

    def sanitizer(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=()):
        seen.append([sizes, *more])
        return SanitizeReport(tool, True, 0)

    memcheck.memcheck_survivors([{"id": "m1", "source": "a"}], [{"id": "m1"}], conv, "cupy", sanitizer)
    assert seen == [[{"n": 333333}, {"n": 37}, {"n": 255}]]
    assert memcheck.one_idle_thread(conv, {"n": 256}) == {"n": 511}  # one past a multiple: the next
    assert memcheck.one_idle_thread(conv, {"n": 255}) is None  # already so
    exact = replace(conv, grid_div_x=[])  # one block per item: no block is ragged
    assert memcheck.one_idle_thread(exact, {"n": 37}) is None


# -- item 4: the spec blamed ---------------------------------------------------------------------------
def _judged(again=None, geometry=None, source=KERNEL):
    s = SPEC
    from kt_tui.kernel.inputs import make_args

    before = {a.name: v for a, v in zip(s.args, make_args(s, s.sizes)) if a.is_array}
    orig = {**before, "hist": right(before["data"], N)}
    runs, _ = checkrun.child_runs(source, s)
    arrays = {"before": before, "original": orig}
    if again is not None:
        arrays["again"] = {**before, "hist": again}
    if geometry is not None:
        arrays["geometry"] = {**before, "hist": geometry}
    return checkrun.judge(s, arrays, runs, []), orig["hist"]


def test_two_runs_of_the_original_that_differ_blame_a_race_with_the_numbers():
    _, hist = _judged()
    racy = hist.copy()
    racy[[3, 9]] -= 1
    state, _ = _judged(again=racy)
    assert state["refused"] == state["blame"]
    assert state["blame"].startswith(
        "the original kernel's outputs depend on the order its blocks run in: run again at its baseline "
        "(block_size_x=64) with its blocks in reverse order (the block started first doing the last one's work), "
        "`hist` differs in 2 of 256 elements (largest difference 1, first at hist[3])"
    )
    state, _ = _judged(again=racy, source=COOPERATIVE)  # its blocks cannot be reordered: run again as they are
    assert state["blame"].startswith(
        "two runs of the original kernel at its baseline (block_size_x=64) give different outputs: `hist` differs "
        "in 2 of 256 elements (largest difference 1, first at hist[3])"
    )


# reads its block's place through cooperative groups: reversing blockIdx alone would split the two
COOPERATIVE = "#include <cooperative_groups.h>\n" + KERNEL.replace(
    "blockIdx.x", "cooperative_groups::this_thread_block().group_index().x"
)


def test_the_race_checks_second_run_has_the_blocks_in_reverse_order_where_nothing_else_reads_their_place():
    again = next(r for r in checkrun.child_runs(KERNEL, SPEC)[0] if r["name"] == "again")
    assert again["reversed"] and again["source"] == REVERSE_BLOCKS + KERNEL
    assert REVERSE_BLOCKS == (
        "#define blockIdx uint3{gridDim.x - 1 - blockIdx.x, gridDim.y - 1 - blockIdx.y, gridDim.z - 1 - blockIdx.z}\n"
    )
    again = next(r for r in checkrun.child_runs(COOPERATIVE, SPEC)[0] if r["name"] == "again")
    assert not again["reversed"] and again["source"] == COOPERATIVE
    for other in (
        'asm("mov.u32 %0, %%ctaid.x;" : "=r"(b));',
        'asm("mov.u32 %0, %%smid;" : "=r"(b));',
        "__cluster_dims__(2, 1, 1)",
        "cg::grid_group g = cg::this_grid();",
    ):
        assert blocks_reversed(KERNEL.replace("int stride", other + "\n    int stride")) is None, other
    kmeans = KERNEL.replace("int size)", "int nclusters)")
    assert blocks_reversed(kmeans) == REVERSE_BLOCKS + kmeans  # a name: nothing reads the place


def test_a_race_check_whose_run_failed_says_so_and_blames_nothing(tmp_path, monkeypatch):
    from kt_tui.gpu.device import outputs

    def run_kernel(name, source, problem_size, args, params, **kw):
        if source.startswith(REVERSE_BLOCKS):
            raise RuntimeError("compile error: blockIdx")
        out = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        out[1] = right(out[0], N)
        return out

    monkeypatch.setattr(outputs, "run_kernel", run_kernel)
    runs, _ = checkrun.child_runs(KERNEL, SPEC)
    job = {"spec": SPEC.to_dict(), "backend": "cupy", "runs": runs, "source": KERNEL}
    (tmp_path / "job.json").write_text(json.dumps(job))
    assert checkrun.main([str(tmp_path / "job.json"), str(tmp_path)]) == 0
    state = json.loads((tmp_path / "state.json").read_text())
    assert "blame" not in state
    assert state["notes"] == [
        "the race check did not run: the original's run `again` failed (RuntimeError: compile error: blockIdx)"
    ]


def test_outputs_that_depend_on_the_block_size_blame_the_launch_and_agreeing_ones_do_not():
    _, hist = _judged()
    half = hist.copy()
    half[50:] = 0
    state, _ = _judged(again=hist.copy(), geometry=half)
    assert state["blame"].startswith(
        "the original kernel's outputs depend on its block size: at block_size_x=128 `hist` differs in"
    )
    assert "from its baseline's (block_size_x=64)" in state["blame"]
    state, _ = _judged(again=hist.copy(), geometry=hist.copy())
    assert "blame" not in state and "refused" not in state


def test_float_sums_reordered_within_tolerance_are_the_same_and_verify_functions_are_exempt():
    s = replace(SPEC, verify="mod:check")
    assert [r["name"] for r in checkrun.child_runs(KERNEL, s)[0]] == ["original", "mutant"]
    assert checkrun.other_geometry(SPEC) == {"block_size_x": 128}
    assert checkrun.other_geometry(replace(SPEC, tune_params={"block_size_x": [64]}, defaults={})) is None
    f = parse_spec(
        """kernel = "k"
problem_size = ["n"]
[sizes]
n = 100
[tune_params]
block_size_x = [32, 64]
[[args]]
name = "total"
type = "float32"
size = 4
init = "zeros"
output = true
[[args]]
name = "n"
type = "int32"
value = "n"
"""
    )
    total = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    runs = checkrun.child_runs("__global__ void k(float *total, int n) { total[0] += 1; }", f)[0]
    arrays = {"before": {"total": np.zeros(4, np.float32)}, "original": {"total": total}}
    arrays["geometry"] = {"total": total + np.float32(1e-7)}
    assert "blame" not in checkrun.judge(f, arrays, runs, [])


def test_a_blamed_spec_runs_no_mutants(tmp_path, monkeypatch):
    from kt_tui.gpu.device import outputs

    calls = []

    def run_kernel(name, source, problem_size, args, params, **kw):
        calls.append(source)
        out = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        out[1] = right(out[0], N if params["block_size_x"] == 64 else N // 2)
        return out

    monkeypatch.setattr(outputs, "run_kernel", run_kernel)
    runs, _ = checkrun.child_runs(KERNEL, SPEC)
    job = {"spec": SPEC.to_dict(), "backend": "cupy", "runs": runs, **_job()}
    (tmp_path / "job.json").write_text(json.dumps(job))
    assert checkrun.main([str(tmp_path / "job.json"), str(tmp_path)]) == 0
    state = json.loads((tmp_path / "state.json").read_text())
    assert "depend on its block size" in state["blame"] and len(calls) == len(runs)


def test_case_spec_changes_only_what_the_case_names():
    case = {"label": "x", "sizes": {"size": 37}, "args": {"data": {"low": 0, "high": 256}, "gone": {"seed": 3}}}
    s = case_spec(SPEC, case)
    assert s.sizes == {"size": 37} and s.args[0].high == 256 and s.args[1] == SPEC.args[1] and SPEC.args[0].high == 100
