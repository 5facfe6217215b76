"""Issue 21: a check that can fail. The array tests (kernel/strength.py, numpy only), the do-nothing
mutant (kernel/mutant.py), and gpu/checkrun.py's sanitizer and run paths with stand-ins."""

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kt_tui.gpu import checkrun, memcheck
from kt_tui.gpu.sanitize import SanitizeReport
from kt_tui.kernel import strength
from kt_tui.kernel.mutant import NoMutant, body_span, do_nothing
from kt_tui.kernel.spec import parse_spec

TOL = (1e-6, 1e-5)


# -- arrays only ---------------------------------------------------------------------------------
def test_a_constant_output_proves_nothing():
    why = strength.weak_output("iters", np.ones(64, np.int32), np.zeros(64, np.int32), {}, TOL)
    assert why == "`iters` is 1 everywhere (64 elements)"
    assert strength.weak_output("grid", np.zeros(9, np.float32), None, {}, TOL).startswith("`grid` is 0 everywhere")
    assert strength.weak_output("s", np.array([3.0]), None, {}, TOL) == ""  # one element: a reduction's result


def test_an_output_left_as_it_was_or_equal_to_an_input_proves_nothing():
    rng = np.random.default_rng(0)
    a, init = rng.random(100).astype(np.float32), rng.random(100).astype(np.float32)
    assert "still holds its initial contents" in strength.weak_output("c", init.copy(), init, {"a": a}, TOL)
    assert strength.weak_output("c", a.copy(), init, {"a": a}, TOL) == "`c` equals the input `a`"
    assert strength.weak_output("c", a + 1, init, {"a": a}, TOL) == ""


def test_nan_poison_everywhere_is_constant_and_nan_equals_nan():
    poison = np.full(10, np.nan, np.float32)
    assert "is nan everywhere" in strength.weak_output("c", poison, poison, {}, TOL)
    assert strength.same(poison, poison.copy())


def test_weak_outputs_over_a_spec_run():
    before = {"c": np.zeros(8, np.float32), "a": np.arange(8, dtype=np.float32)}
    reasons = strength.weak_outputs({"c": np.arange(8, dtype=np.float32)}, before, {"c": TOL})
    assert reasons == ["`c` equals the input `a`"]
    assert strength.verdict(reasons)["state"] == "vacuous"
    assert strength.verdict([])["state"] == "ok"


def test_changed_arguments_against_declared_outputs():
    before = {"pos": np.zeros(6), "vel": np.ones(6), "out": np.zeros(6)}
    after = {"pos": np.arange(6.0), "vel": np.ones(6), "out": np.zeros(6)}
    changed = strength.changed(before, after)
    assert changed == ["pos"]
    fixes = strength.output_fixes(["out"], list(before), changed)
    assert fixes[0] == "`pos` changed but is not in outputs: add it to [outputs] (output = true)"
    assert fixes[1].startswith("`out` is declared an output but the original never changed it")


def test_mutant_matches_names_the_outputs_a_do_nothing_kernel_gets_right():
    ref = {"c": np.zeros(4), "d": np.arange(4.0)}
    assert strength.mutant_matches(ref, {"c": np.zeros(4), "d": np.zeros(4)}, {"c": TOL, "d": TOL}) == [
        "`c` is the same when the kernel's body is emptied"
    ]


# -- the do-nothing mutant -------------------------------------------------------------------------
SRC = """#include <cuda.h>
__device__ float helper(float x) { return x * 2; }
// __global__ void escape(int *out) { not this one }
template <typename T>
__global__ void __launch_bounds__(256) escape(int *out, const float *cx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { out[i] = (int)helper(cx[i]); }
}
__global__ void other(int *o) { o[0] = 1; }
"""


def test_the_mutant_empties_only_the_kernels_body():
    out = do_nothing(SRC, "escape")
    assert "out[i] =" not in out and "helper(float x) { return x * 2; }" in out and "o[0] = 1" in out
    assert "__global__ void __launch_bounds__(256) escape(int *out, const float *cx, int n) {" in out
    start, end = body_span(SRC, "other")
    assert SRC[start:end].strip() == "o[0] = 1;"


def test_no_definition_no_mutant():
    with pytest.raises(NoMutant):
        do_nothing("__global__ void k(int *o);", "k")


# -- gpu/checkrun.py with stand-ins ----------------------------------------------------------------
SPEC_TEXT = """kernel = "escape"
problem_size = ["n"]
grid_div_x = ["block_size_x"]
[sizes]
n = 1000
[tune_params]
block_size_x = [64, 128]
max_iter = [100, 200]
[[args]]
name = "out"
type = "int32"
size = "n"
init = "zeros"
output = true
[[args]]
name = "cx"
type = "float32"
size = "n"
init = "random"
[[args]]
name = "n"
type = "int32"
value = "n"
"""
KERNEL = """__global__ void escape(int *out, const float *cx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { int k = 0; while (k < max_iter && cx[i] * k < 4) k++; out[i] = k; }
}
"""


def spec():
    return parse_spec(SPEC_TEXT)


def clean_sanitizer(calls):
    def run(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=()):
        calls.extend([sizes, *more])
        return SanitizeReport(tool, True, 0, sizes=sizes)

    return run


def fake_child(outputs: dict):
    """Judges the arrays as the child would and writes its state: outputs[name] -> out array."""

    def run(job, out: Path, timeout_s, **kw):
        s = checkrun.spec_from_plain(job["spec"])
        args = checkrun.make_args(s, s.sizes)
        before = {a.name: v for a, v in zip(s.args, args) if a.is_array}
        arrays = {"before": before}
        arrays.update({r["name"]: {**before, "out": outputs[r["name"]]} for r in job["runs"] if r["name"] in outputs})
        if "original" in arrays:
            (out / "state.json").write_text(json.dumps(checkrun.judge(s, arrays, job["runs"], [])))
        return ""

    return run


def test_an_escape_time_kernel_with_a_constant_reference_is_vacuous():
    calls = []
    ones = np.ones(1000, np.int32)
    state = checkrun.check_strength(
        KERNEL,
        spec(),
        "cupy",
        sanitizer=clean_sanitizer(calls),
        child=fake_child({"original": ones, "mutant": np.zeros(1000, np.int32), "param:max_iter": ones}),
    )
    assert state["state"] == "vacuous" and "`out` is 1 everywhere" in state["why"]
    assert state["changed"] == ["out"] and state["fixes"] == []
    assert state["result_params"] == {}
    assert calls[0] == spec().sizes and len(calls) == 1 + len(spec().extra_sizes())  # every check size


def test_a_do_nothing_mutant_that_matches_makes_it_vacuous_and_a_real_one_is_ok():
    ref = np.arange(1000, dtype=np.int32) % 7
    same = checkrun.check_strength(
        KERNEL,
        spec(),
        "cupy",
        sanitizer=clean_sanitizer([]),
        child=fake_child({"original": ref, "mutant": ref.copy(), "param:max_iter": ref}),
    )
    assert same["state"] == "vacuous" and "the same when the kernel's body is emptied" in same["why"]
    ok = checkrun.check_strength(
        KERNEL,
        spec(),
        "cupy",
        sanitizer=clean_sanitizer([]),
        child=fake_child({"original": ref, "mutant": np.zeros(1000, np.int32), "param:max_iter": ref}),
    )
    assert ok["state"] == "ok" and ok["why"] == ""


def test_a_parameter_that_changes_the_outputs_is_found_and_refused_without_a_reference_kernel():
    ref = np.arange(1000, dtype=np.int32) % 7
    state = checkrun.check_strength(
        KERNEL,
        spec(),
        "cupy",
        sanitizer=clean_sanitizer([]),
        child=fake_child({"original": ref, "mutant": np.zeros(1000, np.int32), "param:max_iter": ref + 1}),
    )
    assert list(state["result_params"]) == ["max_iter"]
    why = checkrun.refusal(spec(), state["result_params"])
    assert "max_iter" in why and "[reference] kernel" in why
    assert checkrun.refusal(replace(spec(), reference={"kernel": "naive.cu:escape"}), state["result_params"]) == ""


def test_geometry_is_not_a_result_parameter():
    s = replace(
        spec(),
        tune_params={"block_size_x": [64, 128], "tile": [1, 2], "max_iter": [100, 200], "unused": [1, 2]},
        grid_div_x=["block_size_x*tile"],
    )
    assert checkrun.result_param_candidates(s, KERNEL + " tile") == {"max_iter": 200}


MEMCHECK = """========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at matmul(float *, const float *, const float *, int)+0x1b0 in kernel.cu:7
=========     by thread (3,0,0) in block (10,0,0)
=========     Address 0x7f0000001010 is out of bounds
=========     and is 16 bytes after the nearest allocation at 0x7f0000000000 of size 4,096 bytes
=========
========= ERROR SUMMARY: 1490 errors
"""


def test_out_of_bounds_names_the_argument_the_size_and_the_index():
    s = parse_spec(SPEC_TEXT.replace("n = 1000", "n = 1024"))
    report = SanitizeReport("memcheck", False, 1490, text=MEMCHECK)
    text = memcheck.oob_text(report, s, {"n": 1024}, "n=1024")
    # `out` (int32) and `cx` (float32) both hold 4,096 bytes at n=1024: both named, index 1028
    assert "at n=1024" in text and "1490 errors" in text
    assert "`out`[1028] (1024 elements long) or `cx`[1028] (1024 elements long)" in text and "kernel.cu:7" in text

    def oob(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=()):
        return report if more or sizes != spec.sizes else SanitizeReport(tool, True, 0)

    with pytest.raises(checkrun.OutOfBounds, match="out of bounds at"):
        checkrun.check_strength(KERNEL, s, "cupy", sanitizer=oob, child=fake_child({}))


def test_without_a_gpu_the_check_is_unchecked_never_passed(tmp_path):
    state = checkrun.check_strength(KERNEL, spec(), "sim")
    assert state["state"] == "unchecked" and "was not tested" in state["why"]
    # the static part: a reference file's outputs tested against the inputs, no GPU needed
    np.savez(tmp_path / "ref.npz", out=np.zeros(1000, np.int32))
    (tmp_path / "k.cu.toml").write_text(SPEC_TEXT.replace("[sizes]", 'reference = "ref.npz"\n[sizes]'))
    from kt_tui.kernel.spec import load_spec

    state = checkrun.check_strength(KERNEL, load_spec(tmp_path / "k.cu.toml"), None)
    assert state["state"] == "vacuous" and "`out` is 0 everywhere" in state["why"]


def test_a_child_that_cannot_run_the_original_leaves_it_unchecked():
    state = checkrun.check_strength(
        KERNEL,
        spec(),
        "cupy",
        sanitizer=clean_sanitizer([]),
        child=lambda job, out, t, **kw: "the check runs failed (exit status 1): boom",
    )
    assert state["state"] == "unchecked" and "boom" in state["why"]


def test_the_child_judges_its_arrays_itself_and_sends_only_the_state(tmp_path, monkeypatch):
    """The child process's own code, with its run_kernel (gpu/device/outputs.py) replaced: no GPU needed. A big
    session's arrays stay in the child (no array file for the app's process to read)."""
    from kt_tui.gpu.device import outputs

    def run_kernel(name, source, problem_size, args, params, **kw):
        out = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        if "emptied" not in source:
            out[0] = np.full_like(out[0], params["max_iter"])
        return out

    monkeypatch.setattr(outputs, "run_kernel", run_kernel)
    runs, why = checkrun.child_runs(KERNEL, spec())
    assert why == "" and [r["name"] for r in runs] == ["original", "mutant", "param:max_iter", "again", "geometry"]
    (tmp_path / "job.json").write_text(json.dumps({"spec": spec().to_dict(), "backend": "cupy", "runs": runs}))
    assert checkrun.main([str(tmp_path / "job.json"), str(tmp_path)]) == 0
    state = json.loads((tmp_path / "state.json").read_text())
    assert state["state"] == "vacuous" and state["result_params"] == {
        "max_iter": "at max_iter=200 `out` differs from the baseline's"
    }
    assert not list(tmp_path.glob("*.npz"))


# -- `kt-tui spec --check` ------------------------------------------------------------------------
@pytest.fixture
def checked(monkeypatch, hermetic):
    """`spec --check` on examples/vector_add.cu, with the GPU and the check's state stood in for."""
    from kt_tui.cli import main
    from kt_tui.front import spec_cmd

    from ..conftest import EXAMPLES

    def run(capsys, state=None, backend="cupy", raises=None):
        monkeypatch.setattr(
            spec_cmd,
            "gpu_backend",
            lambda *a, **k: (backend, "no NVIDIA driver on this machine"),
        )

        real = checkrun.check_strength

        def fake(source, spec, be, *a, **kw):
            if raises:
                raise raises
            return state if be else real(source, spec, be)

        monkeypatch.setattr(checkrun, "check_strength", fake)
        code = main(["spec", str(EXAMPLES / "vector_add.cu"), "--check"])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def test_spec_check_without_a_gpu_says_the_check_was_not_tested(checked, capsys):
    code, out, err = checked(capsys, backend=None)
    assert code == 0 and "spec ok" in out and "check NOT tested: no GPU here (no NVIDIA driver" in out


def test_spec_check_out_of_bounds_exits_2_naming_the_argument(checked, capsys):
    code, out, err = checked(
        capsys,
        raises=checkrun.OutOfBounds(
            "the original kernel accesses memory out of bounds at n=349525 (3 errors under memcheck): `a`[349526] ..."
        ),
    )
    assert code == 2 and "spec ok" not in out and "out of bounds at n=349525" in err and "`a`[349526]" in err


def test_spec_check_on_a_vacuous_check_exits_2(checked, capsys):
    code, out, err = checked(capsys, state=strength.verdict(["`c` is 1 everywhere (16777216 elements)"]))
    assert code == 2 and "VACUOUS CHECK: the check proves nothing because `c` is 1 everywhere" in err


def test_spec_check_flags_outputs_found_by_running(checked, capsys):
    fixes = strength.output_fixes(["c"], ["c", "a", "b"], ["c", "a"])
    code, out, err = checked(capsys, state=strength.verdict([], fixes, changed=["c", "a"]))
    assert code == 2 and "`a` changed but is not in outputs: add it to [outputs]" in err


def test_spec_check_with_a_check_that_can_fail(checked, capsys):
    code, out, err = checked(capsys, state=strength.verdict([], [], changed=["c"], notes=[]))
    assert code == 0 and "check tested on cupy: memcheck clean at" in out and "a do-nothing kernel fails it" in out


# -- a reference per configuration (item 4), in the worker, with kernel_tuner stood in for ---------
def test_with_a_reference_kernel_each_configuration_gets_the_reference_at_its_result_parameters(tmp_path, monkeypatch):
    from kt_tui.gpu import checking
    from kt_tui.gpu.device import outputs
    from kt_tui.gpu.protocol import CheckJob, TuneJob
    from kt_tui.kernel.spec import load_spec

    from ..helpers import check_device, open_load, tuner_on
    from .test_refkernel import KERNEL as SCALE
    from .test_refkernel import write

    seen = []

    def run_kernel(name, source, problem_size, args, params, **kw):
        seen.append((name, dict(params)))
        out = list(args)
        out[0] = args[1] * params.get("tile", 1)  # the outputs depend on `tile`
        return out

    monkeypatch.setattr(outputs, "run_kernel", run_kernel)
    spec = load_spec(write(tmp_path))
    job = TuneJob(
        run_id="r",
        source=SCALE,
        spec=spec.to_dict(),
        backend="cupy",
        cachefile=str(tmp_path / "c.json"),
        result_params=["tile"],
    )
    opened = open_load(job, monkeypatch)  # the device worker's Load: one reference per value of `tile`
    got = {tile: opened.by_config[(tile,)]["out"] for tile in (1, 2)}
    got["in"] = opened.host_args[1]
    assert sorted(p["tile"] for n, p in seen if n == "scale_ref") == [1, 2]  # the reference kernel at each value
    assert np.array_equal(got[1], got["in"]) and np.array_equal(got[2], got["in"] * 2)

    events = []
    check = CheckJob(
        run_id="c",
        source=SCALE,
        spec=spec.to_dict(),
        ref_source=SCALE,
        ref_spec=spec.to_dict(),
        ref_params={"block_size_x": 32, "tile": 1},
        backend="cupy",
        sizes=[{"label": "n=37", "sizes": {"n": 37}}],
        configs=[{"block_size_x": 64, "tile": 2}],
        result_params=["tile"],
    )
    monkeypatch.setattr(checking, "_REFS", {})
    device = check_device(lambda s, params: {"out": np.arange(37, dtype=np.float32) * params.get("tile", 1)})
    tuner_on(device).run(check, lambda kind, payload: events.append((kind, payload)), 60)
    assert [p["status"] for k, p in events if k == "check"] == ["ok"]  # tile=2 against the reference at tile=2


def test_an_out_of_bounds_finding_without_an_address_line_still_names_the_argument():
    """The H100's compute-sanitizer gave only the distance from the nearest allocation."""
    from kt_tui.gpu.memcheck import oob_text
    from kt_tui.gpu.sanitize import SanitizeReport
    from kt_tui.kernel.source import find_kernels
    from kt_tui.kernel.spec import parse_spec

    from ..gpu.test_gpu_checks import PARTICLES, PARTICLES_SPEC

    spec = parse_spec(PARTICLES_SPEC, find_kernels(PARTICLES)[0])
    report = SanitizeReport(tool="memcheck", ok=False)
    report.text = (
        "========= Invalid __global__ read of size 4 bytes\n=========     at norms+0xb0 in kernel.cu:5\n"
        "=========     is 43,137 bytes after the nearest allocation at 0x7f7194c00000 of size 400,000 bytes\n"
    )
    report.errors = 133314
    line = oob_text(report, spec, dict(spec.sizes), "")
    assert "`pos`[110784] (100000 elements long)" in line and "out of bounds" in line


def test_a_run_that_fails_under_the_sanitizer_without_a_finding_says_why_not_memcheck():
    s = parse_spec(SPEC_TEXT.replace("n = 1000", "n = 1024"))
    out = (
        "========= COMPUTE-SANITIZER\n"
        "Traceback (most recent call last):\n"
        "pycuda._driver.LogicError: cuModuleGetFunction failed: named symbol not found\n"
        "========= Target application returned an error\n"
        "========= ERROR SUMMARY: 0 errors\n"
    )
    report = SanitizeReport("memcheck", False, 0, text=out, reason="the kernel did not complete under the sanitizer")
    text = memcheck.oob_text(report, s, {"n": 1024}, "")
    assert "memcheck" not in text and "out of bounds" not in text
    assert "did not run under compute-sanitizer" in text and "named symbol not found" in text


def test_an_unverified_spec_is_not_refused_for_parameters_that_change_its_outputs():
    # kt-tui import writes verify = "none" for kernel_tuner scripts with no answer whose tuned filter
    # size changes the result; `kt-tui run` then failed on them on an H100 (nothing is compared anyway)
    changing = {"max_iter": "the outputs differ at 2 of its values"}
    assert checkrun.refusal(spec(), changing) != ""
    assert checkrun.refusal(replace(spec(), verify="none", verify_reason="no answer"), changing) == ""


def test_a_verify_function_of_the_users_judges_outputs_that_parameters_change():
    # kernel_tuner's reduction example: num_blocks changes how many partial sums the first stage
    # writes, and its verify function sums them; kt-tui refused it on an H100 while kernel_tuner
    # passed every configuration (and so did kt-tui's own run of that function)
    changing = {"num_blocks": "at num_blocks=2 `sum_global` differs from the baseline's"}
    assert checkrun.refusal(replace(spec(), verify="reduction_verify:verify_partial_reduce"), changing) == ""


def test_memcheck_runs_every_size_in_one_process_and_each_alone_only_to_say_which():
    s = spec()
    sizes_of_each = [s.sizes] + [e["sizes"] for e in s.extra_sizes()]
    calls = []

    def clean(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=()):
        calls.append([sizes, *more])
        return SanitizeReport(tool, True, 0, sizes=sizes)

    assert memcheck.sanitize_sizes(KERNEL, s, "cupy", clean) == ("", [])
    assert calls == [sizes_of_each]  # one process for all sizes
    report = SanitizeReport("memcheck", False, 3, text=MEMCHECK)
    calls.clear()

    def finds(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=()):
        calls.append([sizes, *more])
        return report if more or sizes == sizes_of_each[-1] else SanitizeReport(tool, True, 0)

    oob, _ = memcheck.sanitize_sizes(KERNEL, s, "cupy", finds)
    last = s.extra_sizes()[-1]["label"]
    assert f"out of bounds at {last}" in oob and calls == [sizes_of_each, *([x] for x in sizes_of_each)]


def test_the_check_runs_go_on_beside_the_sanitizer():
    import threading

    child_started, seen = threading.Event(), []

    def sanitizer(source, spec, params, backend, tool="memcheck", timeout_s=0, sizes=None, more=()):
        seen.append(child_started.wait(10))  # run one after the other, this waits in vain
        return SanitizeReport(tool, True, 0, sizes=sizes)

    write = fake_child({"original": np.arange(1000, dtype=np.int32), "mutant": np.zeros(1000, np.int32)})

    def child(job, out, timeout_s, gpu_done=None, **kw):
        child_started.set()
        return write(job, out, timeout_s)

    state = checkrun.check_strength(KERNEL, spec(), "cupy", sanitizer=sanitizer, child=child)
    assert seen == [True] and state["state"] in ("ok", "vacuous")


def test_a_compile_error_under_the_sanitizer_is_named_not_the_last_line_of_the_log():
    # held-out mmvq_q8_0 on the H100 (session 11): pycuda's extern "C" wrapping broke cuda_fp16.h, and the
    # line said was the "]" that ends pycuda's CompileError, not the error
    s = parse_spec(SPEC_TEXT.replace("n = 1000", "n = 1024"))
    out = (
        "========= COMPUTE-SANITIZER\n"
        "========= Target application returned an error\n"
        "========= ERROR SUMMARY: 0 errors\n"
        "pycuda.driver.CompileError: nvcc compilation of kernel.cu failed\n"
        "[command: nvcc --cubin -arch sm_90 kernel.cu]\n"
        '/usr/local/cuda/include/cuda_fp16.h(5269): error: more than one instance of overloaded function "operator<" has "C" linkage\n'
        "  bool operator<(const __half2 &lh, const __half2 &rh);\n"
        '24 errors detected in the compilation of "kernel.cu".\n'
        "]\n"
    )
    report = SanitizeReport("memcheck", False, 0, text=out, reason="the kernel did not complete under the sanitizer")
    text = memcheck.oob_text(report, s, {"n": 1024}, "")
    assert "did not run under compute-sanitizer" in text
    assert 'has "C" linkage' in text and not text.endswith(": ]")
