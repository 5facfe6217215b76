"""A check that measured nothing of itself (gpu/mutation_score.py unmeasured): every wrong variant
equivalent or stillborn, a kernel with no mutation site (only the do-nothing variant), or none made
at all. NOT MEASURED is said in `spec --check`, kept in `--json` (check.mutants.unmeasured), and
--auto keeps no generated kernel on it unless --allow-survivors, as for TOO FEW RUN. The kernel's
runs and the sanitizer are stand-ins, as in tests/gpu/test_strengthen_order.py."""

import json
from types import SimpleNamespace

import numpy as np

from kt_tui.engine.strategies.sweep import sweep
from kt_tui.engine.strength import SURVIVORS_ALLOWED, not_measured, score_line, survivors_why
from kt_tui.engine.summary import session_summary
from kt_tui.gpu import checkrun
from kt_tui.gpu import mutants as mutation
from kt_tui.gpu.mutation_score import score as mutation_score
from kt_tui.gpu.sanitize import SanitizeReport
from kt_tui.kernel import strength
from kt_tui.kernel.mutant import mutants
from kt_tui.kernel.spec import parse_spec

from ..engine.test_unrun_policy import _accept, _engine

TINY = "__global__ void first(float *out, const float *in) {\n    *out = *in * *in;\n}\n"
TINY_SPEC = parse_spec(
    """kernel = "first"
problem_size = [1]
[tune_params]
block_size_x = [32, 64]
[[args]]
name = "out"
type = "float32"
size = 1
init = "zeros"
output = true
[[args]]
name = "in"
type = "float32"
size = 1
"""
)
MADE = [
    {"id": "m00", "kind": "nothing", "what": "the kernel's body emptied (it does nothing)", "source": "/* emptied */"},
    {"id": "m01", "kind": "const", "what": "`1` -> `2`", "source": "// two"},
    {"id": "m02", "kind": "index", "what": "`[i]` -> `[i + 1]`", "source": "// next"},
]
ALL_SORTED_OUT = [
    {"id": "m00", "case": None, "killed": False, "how": "compiles to the same code as the original (sm_90)",
     "class": "equivalent"},
    {"id": "m01", "case": None, "killed": False, "how": "compiles to the same code as the original (sm_90)",
     "class": "equivalent"},
    {"id": "m02", "case": None, "killed": False, "how": "error: no operator", "class": "stillborn"},
]  # fmt: skip


def test_a_check_whose_mutants_are_all_equivalent_or_stillborn_is_flagged_and_auto_refuses_it():
    score = mutation_score(MADE, ALL_SORTED_OUT, [], {})
    said = "of the 3 wrong variants kt-tui made, none could be run: 2 equivalent (the same compiled code), 1 stillborn"
    assert score["unmeasured"].startswith(said) and score["line"] == "the check ran no wrong variant of the kernel"
    state = strength.verdict([], [], changed=["out"], mutants=score)
    assert score_line(state) == f"{score['line']}; NOT MEASURED: {score['unmeasured']}"
    why = survivors_why(state)
    assert why.startswith(f"NOT MEASURED: {score['unmeasured']}; no wrong variant tells") and why.endswith(
        SURVIVORS_ALLOWED
    )
    # only the do-nothing variant ran (killed): a check that a kernel does something, nothing more
    killed = [{"id": "m00", "case": None, "killed": True, "how": "differs", "at": ""}, *ALL_SORTED_OUT[1:]]
    only = mutation_score(MADE, killed, [], {})
    assert only["unmeasured"].startswith("of the 3 wrong variants kt-tui made, only the do-nothing kernel could be")
    assert only["line"] == "the check catches 1 of 1 wrong variant"
    # one of a mutation site ran: measured, whatever it did
    ran = [*killed[:2], {"id": "m02", "case": None, "killed": False, "how": "", "at": ""}]
    assert mutation_score(MADE, ran, [], {})["unmeasured"] is None


def test_unrun_mutants_are_too_few_run_not_unmeasured():
    records = [ALL_SORTED_OUT[0]]  # m01, m02 not run within the budget
    score = mutation_score(MADE, records, [], {})
    state = {"state": "ok", "mutants": score}
    assert score["unmeasured"] is None and not_measured(state) is None and score["unrun"]["over"]


def _tiny_child(job, out, timeout_s, gpu_done=None, on_survivors=None):
    """The check's child for TINY in this process: `*out = *in * *in` on the host."""
    s = checkrun.spec_from_plain(job["spec"])
    from kt_tui.kernel.inputs import make_args

    def run(s, source, params):
        args = dict(zip([a.name for a in s.args], make_args(s, s.sizes)))
        if "*out = *in * *in" in source:
            args["out"] = np.array(args["in"][:1] ** 2, np.float32)
        return args

    before = {a.name: v for a, v in zip(s.args, make_args(s, s.sizes)) if a.is_array}
    orig = {**before, "out": np.array(before["in"][:1] ** 2, np.float32)}
    (out / "state.json").write_text(json.dumps(checkrun.judge(s, {"before": before, "original": orig}, [], [])))
    mutation.child_runs(s, job, out, run, lambda line: None)
    gpu_done()
    return ""


def _clean(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=(), cases=()):
    return SanitizeReport(tool, True, 0, sizes=sizes)


def test_a_kernel_with_no_mutation_site_gets_a_clear_flag_not_a_crash(monkeypatch, capsys):
    assert [m.kind for m in mutants(TINY, "first")] == ["nothing"]
    state = checkrun.check_strength(TINY, TINY_SPEC, "cupy", sanitizer=_clean, child=_tiny_child)
    score = state["mutants"]
    assert score["made"] == score["counted"] == score["killed"] == 1
    assert score["unmeasured"] == (
        "the kernel has no mutation site: kt-tui makes no wrong variant of it but the do-nothing kernel"
    )
    from kt_tui.front import spec_cmd

    monkeypatch.setattr(spec_cmd, "gpu_backend", lambda *a, **k: ("cupy", ""))
    monkeypatch.setattr(spec_cmd.checkrun, "check_strength", lambda *a, **k: state)
    kf = SimpleNamespace(source=TINY, path="first.cu")
    said = spec_cmd.test_check(SimpleNamespace(backend=None), kf, TINY_SPEC)
    assert "; the check catches 1 of 1 wrong variant; NOT MEASURED: the kernel has no mutation site: " in said


def test_no_mutant_made_at_all_is_flagged_with_why():
    score = mutation_score([], [], [], {}, unmade="no definition of the kernel 'first' found in the source")
    assert score["made"] == 0 and score["survivors"] == []
    assert score["unmeasured"] == (
        "kt-tui could make no wrong variant of the kernel (no definition of the kernel 'first' found in the source)"
    )


def test_auto_keeps_no_kernel_on_an_unmeasured_check_unless_survivors_are_allowed(hermetic):
    state = strength.verdict([], [], changed=["out"], mutants=mutation_score(MADE, ALL_SORTED_OUT, [], {}))
    for k, kw in enumerate(({}, {"allow_survivors": True})):
        store, sid, gpu, engine, gates, events = _engine(hermetic / str(k), state, **kw)
        assert engine.run(sweep) == "finished"
        assert "; NOT MEASURED: of the 3 wrong variants" in gates[0].check
        assert session_summary(store, sid)["check"]["mutants"]["unmeasured"].startswith("of the 3 wrong variants")
        gate = _accept(engine)
        choice, why = gate.auto()
        if kw:
            assert gate.survivors is None and (choice, why) == ("approve", None)
        else:
            assert (
                choice == "skip" and "NOT MEASURED: of the 3 wrong variants" in why and why.endswith(SURVIVORS_ALLOWED)
            )
