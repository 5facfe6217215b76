"""Issue 35, the check's test within its time (gpu/mutants.py, gpu/memcheck.py, gpu/checkrun.py) without a
GPU: the stronger inputs run at the check sizes first and at the spec's size only on the survivors no
case killed; only a case that kills is memchecked, in one process, beside the child's runs at the spec's
size (as are the survivors no case killed); a case that kills but memcheck refuses has its kills
discounted. The kernel's runs and the sanitizer are stand-ins (tests/gpu/test_mutants.py's)."""

import json
import threading

from kt_tui.gpu import checkrun, memcheck
from kt_tui.gpu import mutants as mutation
from kt_tui.gpu.mutation_score import score as mutation_score
from kt_tui.gpu.sanitize import SanitizeReport
from kt_tui.kernel.mutant import Mutant, mutants
from kt_tui.kernel.strengthen import case_spec, cheap_first

from .test_mutants import KERNEL, MUTANTS, SPEC, N, _emptied, _job, generated, right, stand_in

SEED = {"label": "a second seed", "sizes": {}, "args": {"data": {"seed": 1001}}}
WIDE = {"label": "`data` over all 256 values of uint8", "sizes": {}, "args": {"data": {"low": 0, "high": 256}}}
WIDE_SMALL = "`data` over all 256 values of uint8, at size=37"
OUT_OF_BOUNDS = "========= Invalid __global__ read of size 4 bytes\n=========     at histogram256+0x70\n"


def fake_child(run):
    """The check's child in this process: the original judged, then child_runs with `run`; its
    SURVIVORS line heard as the real parent hears it."""

    def child(job, out, timeout_s, gpu_done=None, on_survivors=None):
        s = checkrun.spec_from_plain(job["spec"])
        from kt_tui.kernel.inputs import make_args

        before = {a.name: v for a, v in zip(s.args, make_args(s, s.sizes)) if a.is_array}
        orig = {**before, "hist": right(before["data"], N)}
        (out / "state.json").write_text(json.dumps(checkrun.judge(s, {"before": before, "original": orig}, [], [])))

        def say(line):
            if line.startswith(mutation.SURVIVORS):
                on_survivors(int(line.rsplit(" ", 1)[-1]))

        mutation.child_runs(s, job, out, run, say)
        gpu_done()
        return ""

    return child


def case_sanitizer(calls, illegal=()):
    """A sanitizer that records each run: (the source, the specs it runs the original on with other
    inputs: the stronger cases, every spec but the check's own); those in `illegal` read out of bounds."""

    def sanitizer(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=(), cases=()):
        ran = [*([spec] if spec is not SPEC else []), *cases] if source == KERNEL else []
        calls.append((source, ran))
        if any(s in illegal for s in ran):
            return SanitizeReport(tool, False, 1, text=OUT_OF_BOUNDS, sizes=sizes)
        return SanitizeReport(tool, True, 0, sizes=sizes)

    return sanitizer


def test_at_the_specs_size_the_cases_run_only_on_survivors_no_case_killed(tmp_path):
    # m01, m02 die on all 256 bytes at size=37; m03 (`i <= size`) survives every input: only it meets the
    # cases at the spec's size, and without it no case runs there at all (not even the original's run)
    ran = []

    def run(s, source, params):
        ran.append((s.sizes["size"], s.args != SPEC.args, source))
        return stand_in(_emptied)(s, source, params)

    cases = cheap_first(SPEC, [SEED, WIDE])
    for out, wrong in ((tmp_path / "all", MUTANTS), (tmp_path / "no_m03", [m for m in MUTANTS if m["id"] != "m03"])):
        out.mkdir()
        said = []
        mutation.child_runs(SPEC, _job(cases=cases, mutants=wrong), out, run, said.append)
        records = mutation.read_jsonl(out / mutation.RECORDS)
        at_spec = {(r["id"], r["case"]) for r in records if r["case"] in (SEED["label"], WIDE["label"])}
        tried = [c["label"] for c in mutation.read_jsonl(out / mutation.CASES)]
        if wrong is MUTANTS:
            assert at_spec == {("m03", SEED["label"]), ("m03", WIDE["label"])}
            assert {(r["id"], r["case"]) for r in records if r["case"] == WIDE_SMALL} == {
                ("m01", WIDE_SMALL), ("m02", WIDE_SMALL), ("m03", WIDE_SMALL)}  # fmt: skip
            assert tried == [c["label"] for c in cases] and f"{mutation.SURVIVORS} t0 1" in said
        else:
            assert at_spec == set() and tried == [c["label"] for c in cases[:2]]
            assert not [r for r in ran if r[:2] == (N, True)]  # no run on stronger inputs at the spec's size
            assert f"{mutation.SURVIVORS} t0 0" in said
        ran.clear()


def test_only_the_cases_that_kill_are_memchecked_and_kept(tmp_path):
    calls = []
    state = checkrun.check_strength(KERNEL, SPEC, "cupy", sanitizer=case_sanitizer(calls), child=fake_child(stand_in(generated)))  # fmt: skip
    wide = {"data": {"low": 0, "high": 256}}
    small = {"label": WIDE_SMALL, "sizes": {"size": 37}, "args": wide}
    # one process for the cases, on the one that killed (not the seed, nor `size` one less, nor any at the spec's size)
    assert [ran for _, ran in calls if ran] == [[case_spec(SPEC, small)]]
    assert state["cases"] == [small]
    made = mutants(KERNEL, "histogram256")
    assert state["mutants"]["killed"] == len(made) == state["mutants"]["killed_before"] + 2
    whys = {t["label"]: t["why"] for t in state["mutants"]["strengthening"]}
    assert whys[WIDE_SMALL].startswith("kills m") and whys["a second seed, at size=37"] == "kills no survivor"
    assert set(whys) == {c["label"] for c in cheap_first(SPEC, checkrun.candidates(SPEC, KERNEL))[:3]}


def test_a_case_that_kills_but_memcheck_refuses_has_its_kills_discounted(tmp_path):
    calls = []
    small = case_spec(SPEC, {"label": WIDE_SMALL, "sizes": {"size": 37}, "args": WIDE["args"]})
    wide = case_spec(SPEC, WIDE)  # the same inputs at the spec's size, where the two are tried again: refused too
    state = checkrun.check_strength(
        KERNEL,
        SPEC,
        "cupy",
        sanitizer=case_sanitizer(calls, illegal=[small, wide]),
        child=fake_child(stand_in(generated)),
    )
    # each together, then alone to say why: no other
    assert [ran for _, ran in calls if ran] == [[small], [small], [wide], [wide]]
    score = state["mutants"]
    assert score["killed"] == score["killed_before"] and len(score["survivors"]) == 2 and state["cases"] == []
    refused = next(t for t in score["strengthening"] if t["label"] == WIDE_SMALL)
    assert not refused["kept"] and refused["why"].startswith("memcheck: the original kernel accesses memory out of")
    # the two it would have killed are memchecked as survivors, once the cases' memcheck refused it
    left = {m.source for m in mutants(KERNEL, "histogram256") if m.id in {s["id"] for s in score["survivors"]}}
    checked = [source for source, _ in calls if source != KERNEL]
    assert sorted(checked) == sorted(left) and len(left) == 2


def test_a_survivor_whose_kill_memcheck_refused_is_tried_again_at_the_specs_size(tmp_path):
    # the two that die on all 256 bytes at size=37, a case memcheck refuses, meet the cases at the spec's
    # size as any survivor does: all 256 bytes there kill them, memcheck finds it clean, and it is kept
    calls = []
    small = case_spec(SPEC, {"label": WIDE_SMALL, "sizes": {"size": 37}, "args": WIDE["args"]})
    runs = []

    def run(s, source, params):
        runs.append((s.sizes["size"], s.args != SPEC.args, source))
        return stand_in(generated)(s, source, params)

    state = checkrun.check_strength(
        KERNEL, SPEC, "cupy", sanitizer=case_sanitizer(calls, illegal=[small]), child=fake_child(run)
    )
    score = state["mutants"]
    assert score["killed"] == score["killed_before"] + 2 == len(mutants(KERNEL, "histogram256"))
    assert score["survivors"] == [] and state["cases"] == [{**WIDE, "sizes": {"size": N}}]
    whys = {t["label"]: t for t in score["strengthening"]}
    assert whys[WIDE["label"]]["kept"] and whys[WIDE["label"]]["why"].startswith("kills m")
    assert not whys[WIDE_SMALL]["kept"] and whys[WIDE_SMALL]["why"].startswith("memcheck: ")
    assert len([r for r in runs if r[:2] == (N, True) and r[2] != KERNEL]) == 2  # the two, at the spec's size
    assert [ran for _, ran in calls if ran] == [[small], [small], [case_spec(SPEC, WIDE)]]


def test_the_child_tries_again_the_survivors_of_the_cases_the_verdict_refuses(tmp_path):
    # the verdict the parent writes once memcheck refused the case at size=37 (gpu/memcheck.py)
    job = _job(cases=cheap_first(SPEC, [SEED, WIDE]), verdict=True)
    mutation.write_verdict(tmp_path, {WIDE_SMALL: "memcheck: out of bounds", SEED["label"]: ""})
    assert mutation.wait_verdict(tmp_path, 0.0) == {WIDE_SMALL}
    mutation.child_runs(SPEC, job, tmp_path, stand_in(_emptied), lambda line: None)
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    # _emptied: m01, m02 die at size=37 on all 256 bytes, refused: tried again on all 256 bytes at the spec's size
    again = {r["id"] for r in records if r["case"] == WIDE["label"]}
    assert again == {"m01", "m02", "m03"}


def test_the_memchecks_run_beside_the_spec_size_runs_of_the_survivors_no_case_killed(tmp_path, monkeypatch):
    wrong = [Mutant(m["id"], m["kind"], 1, m["what"], m["source"]) for m in MUTANTS]
    monkeypatch.setattr(checkrun, "mutants", lambda source, kernel, spec=None: wrong)
    monkeypatch.setattr(checkrun, "candidates", lambda spec, source: [SEED, WIDE])
    cases_asked, survivors_asked, waited, survivors = threading.Event(), threading.Event(), [], []
    checks = case_sanitizer([])

    def sanitizer(source, spec, *a, **k):
        if source == KERNEL and (spec is not SPEC or k.get("cases")):
            cases_asked.set()
        elif source != KERNEL:
            survivors.append(source)
            survivors_asked.set()
        return checks(source, spec, *a, **k)

    def run(s, source, params):
        if s.sizes["size"] == N and s.args != SPEC.args and source != KERNEL:  # a survivor on a case at the spec's size
            waited.append(cases_asked.wait(10) and survivors_asked.wait(10))
        return stand_in(_emptied)(s, source, params)

    state = checkrun.check_strength(KERNEL, SPEC, "cupy", sanitizer=sanitizer, child=fake_child(run))
    assert waited == [True, True]  # m03 alone, on the seed and on all 256 bytes: both memchecks asked meanwhile
    assert survivors == [MUTANTS[3]["source"]]  # m03 alone: m01, m02 died at size=37
    assert state["mutants"]["killed"] == 4 and [s["id"] for s in state["mutants"]["survivors"]] == ["m03"]
    assert [c["label"] for c in state["cases"]] == [WIDE_SMALL]


def test_a_case_not_memchecked_that_kills_nothing_kills_no_survivor_and_one_that_kills_is_not_kept(tmp_path):
    mutation.child_runs(SPEC, _job(), tmp_path, stand_in(_emptied), lambda line: None)
    records = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    cases = mutation.read_jsonl(tmp_path / mutation.CASES)
    said = {t["label"]: t for t in mutation_score(MUTANTS, records, cases, {})["strengthening"]}
    assert said["a second seed"]["why"] == "kills no survivor"
    assert said[WIDE["label"]] == {"label": WIDE["label"], "kept": False, "why": "not tested under memcheck"}


def test_the_cases_memcheck_is_one_process_on_the_cases_own_inputs_and_none_without_cases():
    calls = []

    def run(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=(), cases=()):
        calls.append((spec, sizes, list(cases)))
        return SanitizeReport(tool, True, 0)

    assert memcheck.sanitize_cases(KERNEL, SPEC, "cupy", [], run) == {} and calls == []
    two = cheap_first(SPEC, [SEED, WIDE])[:2]
    assert memcheck.sanitize_cases(KERNEL, SPEC, "cupy", two, run) == {c["label"]: "" for c in two}
    first, second = (case_spec(SPEC, c) for c in two)
    assert calls == [(first, first.sizes, [second])]  # not the spec's own inputs again: memcheck ran those
