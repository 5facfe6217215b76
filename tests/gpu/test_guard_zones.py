"""Issue 35, guard zones (kernel/guards.py): the mutants' runs hand every array to the kernel with a zone
after it, poison after an input and a canary after an output, so an off-by-one read or write is seen
where a compare of the outputs alone sees nothing (the H100 run of 2026-12-06: `i < n` -> `i <= n`,
`y < height` -> `<=`, `j < FILTER_H` -> `<=` all survived). Without a GPU the kernel's runs are
stand-ins that read and write the buffers they are handed as a GPU does; the last test runs them on
one (marked gpu)."""

import json

import numpy as np
import pytest

from kt_tui.gpu import checkrun, mutants_child
from kt_tui.gpu import mutants as mutation
from kt_tui.kernel.guards import PAYLOAD, Guarded, PastTheEnd, zone
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.spec import parse_spec

from ..helpers import report
from .test_gpu_checks import _write

SCALE = """__global__ void scale_sum(float *out, float *total, const float *in, const int *idx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
    if (i < n && idx[i] >= 0)
        atomicAdd(total, in[i]);
}
"""
SPEC_TEXT = """kernel = "scale_sum"
problem_size = ["n"]
[sizes]
n = 1000
[tune_params]
block_size_x = [64, 128]
[[args]]
name = "out"
type = "float32"
size = "n"
init = "zeros"
output = true
[[args]]
name = "total"
type = "float32"
size = 1
init = "zeros"
output = true
rtol = 1e-3
[[args]]
name = "in"
type = "float32"
size = "n"
[[args]]
name = "idx"
type = "int32"
size = "n"
init = "range"
[[args]]
name = "n"
type = "int32"
value = "n"
"""
SPEC = parse_spec(SPEC_TEXT)
READ = SCALE.replace("if (i < n && idx", "if (i <= n && idx")  # reads in[n] (and idx[n])
WRITE = SCALE.replace("if (i < n)\n        out[i]", "if (i <= n)\n        out[i]")  # writes out[n]


def test_every_array_gets_a_zone_of_poison_or_canaries_and_the_kernel_its_own_length():
    args = make_args(SPEC, SPEC.sizes)
    g = Guarded(SPEC, args)
    out, total, inp, idx, n = g.args
    assert n == 1000 and g.lengths == {"out": 1000, "total": 1, "in": 1000, "idx": 1000}
    assert out.size == 1000 + zone(1000) and total.size == 1 + zone(1) and zone(1000) >= 1 and zone(1) >= 1
    assert np.array_equal(inp[:1000], args[2]) and np.isnan(inp[1000:]).all()  # poison after an input
    assert (idx[1000:] == np.iinfo(np.int32).max).all()  # an index read past the end leaves every array
    canary = out[1000:].view(np.uint32)
    assert np.isnan(out[1000:]).all() and (canary & 0xFF == PAYLOAD).all()  # a NaN no kernel computes
    assert zone(10**7) == 10**7 // 4 and zone(3, lanes=2) % 2 == 0  # a row of a 2-D array; whole vectors

    after = {"out": out.copy(), "total": total.copy(), "in": inp.copy(), "idx": idx.copy()}
    assert g.unguard(after)["out"].size == 1000  # untouched zones: the arrays at their own length
    after["out"][1000] = 0.0
    with pytest.raises(PastTheEnd, match=r"writes past the end of `out` \(out\[1000\] changed; it has 1000 elements\)"):
        g.unguard(after)
    after["out"] = out.copy()
    after["in"][1001:1002].view(np.uint32)[:] = 0x7FFFFFFF  # a NaN the GPU computes is not the poison's bits
    with pytest.raises(PastTheEnd, match="`in`"):
        g.unguard(after)


def run_kernel(source):
    """The kernel as a GPU runs it on the buffers it is handed: past a buffer lies another allocation
    (zeros here), which no compare of the outputs sees."""

    def run(s, src, params, sizes, backend, args):
        out, total, inp, idx, n = (np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)

        def at(a, k):
            return a[k] if k < a.size else a.dtype.type(0)

        for i in range(int(n) + ("if (i <= n)\n        out[i]" in src)):
            if i < out.size:
                out[i] = 2.0 * at(inp, i)
        for i in range(int(n) + ("i <= n && idx" in src)):
            if at(idx, i) >= 0:
                total[0] += at(inp, i)
        return {"out": out, "total": total, "in": inp, "idx": idx}

    return run


@pytest.mark.parametrize(
    ("source", "how"), [(READ, "wrong result at n=37: total"), (WRITE, "writes past the end of `out`")]
)
def test_an_off_by_one_read_and_an_off_by_one_write_are_killed(tmp_path, source, how):
    mutants = [{"id": "m01", "kind": "index", "what": "one past", "source": source}]
    job = {"token": "t", "source": SCALE, "backend": "cupy", "mutants": mutants, "budget_s": 60, "strengthen_s": 60}
    job["sizes"] = [{"label": "n=37", "sizes": {"n": 37}}]
    mutants_child.run_in_child(SPEC, job, tmp_path, lambda *a: run_kernel(a[1])(*a), None)
    (record,) = mutation.read_jsonl(tmp_path / mutation.RECORDS)
    assert record["killed"] and record["how"].startswith(how), record
    # unguarded, as a compare of the outputs alone: the same run passes
    args = make_args(SPEC, SPEC.sizes)
    mine, theirs = (
        run_kernel(source)(SPEC, source, {}, None, "", args),
        run_kernel(SCALE)(SPEC, SCALE, {}, None, "", args),
    )
    assert np.array_equal(mine["out"], theirs["out"]) and np.allclose(mine["total"], theirs["total"], rtol=1e-3)


def test_the_original_stays_clean_in_its_zones(tmp_path):
    job = {"token": "t", "source": SCALE, "backend": "cupy", "budget_s": 60, "strengthen_s": 60, "sizes": []}
    job["mutants"] = [{"id": "m01", "kind": "const", "what": "same", "source": SCALE + "\n"}]
    mutants_child.run_in_child(SPEC, job, tmp_path, lambda *a: run_kernel(a[1])(*a), None)
    assert mutation.read_jsonl(tmp_path / mutation.RECORDS) == [
        {"id": "m01", "case": None, "killed": False, "how": "", "at": ""}
    ]


@pytest.mark.gpu
def test_guard_zones_kill_an_off_by_one_read_and_write_on_a_gpu(tmp_path):
    from kt_tui.kernel.spec import load_spec

    kernel = _write(tmp_path, "scale_sum", SCALE, SPEC_TEXT)
    spec = load_spec(kernel.with_suffix(".cu.toml"))
    state = checkrun.check_strength(SCALE, spec, "pycuda")
    score = state["mutants"]
    report(f"guard zones, scale_sum: {score['line']}; {state['seconds']} s")
    bound = [m for m in mutants_of(SCALE) if m.kind == "bound" and "`<` -> `<=`" in m.what]
    assert bound and all(m.id not in {s["id"] for s in score["survivors"]} for m in bound), score["survivors"]
    how = json.dumps(score["killed_how"])
    assert "writes past the end of `out`" in how, how


def mutants_of(source):
    from kt_tui.kernel.mutant import mutants

    return mutants(source, "scale_sum")
