"""Drafter defaults made by the class of error the held-out first drafts repeat (session 20), each on a kernel
written here: a float scalar of unknown role is drafted in (0, 1), apart from the others; one that divides
or is a power's base above 1; an int only compared with constants (==, !=, switch cases) takes one of them."""

from __future__ import annotations

from kt_tui.kernel import cuda_ast
from kt_tui.kernel.draft_floats import DIVISORS, FLOAT_SCALARS, divisors
from kt_tui.kernel.draft_guards import selectors

from .test_draft_shapes import _draft

MIX = """
__global__ void mix(float *out, const float *x, const float *len, int n, float alpha, float beta, float gamma,
                    float avg, float base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = alpha * x[i] + beta * (1.0f - gamma) * x[i];
        out[i] = v + len[i] / avg + powf(base, -x[i]);
    }
}
"""


def _values(src: str) -> dict[str, object]:
    return {a.name: a.value for a in _draft(src).spec.args if not a.is_array}


def test_float_scalars_of_unknown_role_are_drafted_in_0_1_and_apart():
    d = _draft(MIX)
    values = {a.name: a.value for a in d.spec.args if not a.is_array}
    plain = [values[n] for n in ("alpha", "beta", "gamma")]
    assert all(isinstance(v, float) and 0 < v < 1 for v in plain)  # before: 0.75, 1.5, 2.5 (1 - gamma < 0)
    assert len(set(plain)) == 3
    assert "in (0, 1)" in dict(d.guesses)["args.beta"]


def test_a_float_scalar_that_divides_or_is_a_powers_base_is_drafted_above_1():
    d = _draft(MIX)
    values = {a.name: a.value for a in d.spec.args if not a.is_array}
    assert values["avg"] in DIVISORS and values["base"] in DIVISORS and values["avg"] != values["base"]
    assert all(v > 1 for v in (values["avg"], values["base"]))
    assert "it divides" in dict(d.guesses)["args.avg"]
    # a scalar that only multiplies, or divides with others (`x / (a * s)`), keeps the (0, 1) default
    assert _values(MIX.replace("len[i] / avg", "len[i] * avg"))["avg"] in FLOAT_SCALARS


def test_divisors_reads_only_a_divisor_alone_or_a_powers_base():
    fn = cuda_ast.parse(
        "__global__ void k(float *o, float a, float b, float c, float d) "
        "{ o[0] = o[1] / (a); o[3] = a / b + o[2] / (c * d) + powf(2.0f, d); }"
    ).kernels["k"]
    assert divisors(fn, {"a", "b", "c", "d"}) == {"a", "b"}


SELECT = """
#define MODE_SUM 2
#define MODE_MAX 3
__global__ void tri(float *out, const float *a, int n, int uplo, int trans, int mode, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = a[i];
    if (uplo == 0) v = v * 2.0f;
    else if (uplo == 1) v = v + 1.0f;
    if ((trans) != 2) v = -v;
    switch (mode) {
    case MODE_SUM: v += a[(i + k) % n]; break;
    case MODE_MAX: v = fmaxf(v, a[0]); break;
    }
    out[i] = v;
}
"""


def test_an_int_only_compared_with_constants_takes_one_of_them():
    d = _draft(SELECT)
    values = {a.name: a.value for a in d.spec.args if not a.is_array}
    assert values["uplo"] in (0, 1)  # before: 3, a value the code never tests
    assert values["trans"] == 2  # before: 5
    assert values["mode"] == 2  # before: 7, no case taken
    assert "compared with constants" in dict(d.guesses)["args.uplo"]
    assert "compared with constants" not in dict(d.guesses)["args.k"]  # used in arithmetic: no selector


def test_selectors_leave_a_scalar_used_otherwise_and_a_plain_truth_test():
    fn = cuda_ast.parse(
        "__global__ void k(float *o, int a, int b, int c) { if (a == 1) o[0] = 1.0f; o[a] = 2.0f; if (b) o[1] = 0.0f;"
        " if (c == 4 || !c) o[2] = 0.0f; }"
    ).kernels["k"]
    assert selectors(fn, {"a", "b", "c"}, {}) == {"c": 0}


def test_selectors_and_divisors_stay_bounded_on_hostile_input():
    body = " ".join(f"switch (m) {{ case {k}: o[{k}] = o[{k}] / s; break; }}" for k in range(3000))
    fn = cuda_ast.parse(f"__global__ void k(float *o, int m, float s) {{ {body} }}").kernels["k"]
    assert selectors(fn, {"m"}, {}) == {}  # too many uses: read as no selector
    assert divisors(fn, {"s"}) <= {"s"}  # the walk's node budget may stop before the first division
