"""Drafter rules made after seeing held-out batch 21, each on a kernel written here: a pitch under planes
of rows (`(c * h + y) * pitch + x`) is at least the row's width, not a third of it; a float taken as `1 - w`
and multiplied by elsewhere is a mixing weight in (0, 1); a float that divides an int array's value is a
count's scale, at least 1; an int divided by constants before it divides is at least their product; float
values summed into a divisor are drawn positive; two pointers a loop swaps (a double buffer in dynamic
shared memory) each reach what either reaches; a count that bounds a loop over a fixed-size local array is at
most its extent. And the five drafts of batch 21 that were wrong first now match their truth files."""

from __future__ import annotations

import pytest

from kt_tui.kernel.draft import draft
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import dump_spec, parse_spec

from .test_corpus import CORPUS, drafts, judge
from .test_draft_shapes import _draft, _points

PLANES = """
__global__ void planar_gain(const float *src, float *dst, int w, int h, int pitch, float g) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    for (int c = 0; c < 3; ++c)
        dst[(c * h + y) * pitch + x] = g * src[(c * h + y) * pitch + x];
}
"""


def test_a_pitch_under_planes_of_rows_is_at_least_the_width():
    d = _draft(PLANES)
    for at in _points(d.spec):
        assert at["pitch"] > at["w"]  # before: ceil((w + 32) / 3), the 3 planes taken as items per stride
    assert "at least w" in dict(d.guesses)["args.pitch"]


CORNERS = """
__global__ void corner_sums(const float *v, int nx, int ny, int nz, int pitch, int slice, float *out) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
    float s = 0.0f;
    for (int k = 0; k < 8; ++k)
        s += v[(z + (k >> 2)) * slice + (y + ((k >> 1) & 1)) * pitch + x + (k & 1)];
    out[(z * (ny - 1) + y) * (nx - 1) + x] = s;
}
"""


def test_a_fraction_a_bound_leaves_in_a_strides_coefficient_is_no_unit_of_it():
    d = _draft(CORNERS)
    for at in _points(d.spec):  # the bound of z + (k >> 2) is nz - 1/4: the quarter is no byte pitch
        assert at["ny"] * at["pitch"] < at["slice"] < 2 * at["ny"] * at["pitch"]  # 4 times it with the quarter


HALF_PLANE = """
__global__ void luma_chroma(const unsigned char *img, int pitch, int w, int h, float *out) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    out[y * w + x] = img[y * pitch + x] + 0.5f * img[(h + y / 2) * pitch + x];
}
"""


def test_a_half_height_plane_after_the_rows_leaves_the_pitch_at_least_the_width_not_twice_it():
    d = _draft(HALF_PLANE)
    for at in _points(d.spec):  # the pitch's coefficient is 3/2 * h - 1: no half unit (a common factor said 1/2)
        assert at["w"] < at["pitch"] < 2 * at["w"]


MIXED = """
__global__ void blend_scaled(const float *x, const float *y, int n, float k, float w, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float keep = k * (1.0f - w);
    const float take = w * y[i];
    out[i] = keep * x[i] + take;
}
"""


def test_a_float_taken_as_one_minus_it_and_multiplied_by_elsewhere_is_a_weight_in_zero_one():
    d = _draft(MIXED)
    w = next(a for a in d.spec.args if a.name == "w")
    assert 0 < w.value < 1  # before: 1.5, the second made-up float
    assert "mixes two terms" in dict(d.guesses)["args.w"]
    k = next(a for a in d.spec.args if a.name == "k")
    assert k.value != w.value


COUNTS = """
__global__ void per_mean(const int *counts, const unsigned short *hits, int n, float mean, float total,
                         float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float inv = 2.0f / mean;
    out[i] = inv * counts[i] + (float)hits[i] / total;
}
"""


def test_a_float_that_divides_an_int_arrays_value_is_a_scale_of_counts_at_least_one():
    d = _draft(COUNTS)
    values = {a.name: a.value for a in d.spec.args if not a.is_array}
    assert values["mean"] >= 1  # before: 0.75, through the local inv that multiplies counts[i]
    assert values["total"] >= 1  # before: 1.5 (the direct quotient passed only by luck)
    assert "scale" in dict(d.guesses)["args.mean"]


WEIGHTED = """
__global__ void centroid(const float *mass, const float *pos, int n, int k, float *c) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float m = 0.0f, s = 0.0f;
    for (int j = 0; j < k; ++j) {
        const float w = mass[i * k + j];
        m += w;
        s += w * pos[i * k + j];
    }
    c[i] = s / m;
}
"""


def test_float_values_summed_into_a_divisor_are_drawn_positive():
    args = {a.name: a for a in _draft(WEIGHTED).spec.args}
    assert args["mass"].init == "positive"  # before: random of both signs, m near 0 at some i
    assert args["pos"].init == "random"  # weighted, not summed alone: any sign


HALVED = """
__global__ void fold_buckets(const int *d, int n, int nb, int two_sided, int *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int side = nb;
    if (two_sided) side /= 2;
    const int q = side / 3;
    out[i] = d[i] % q;
}
"""


def test_an_int_divided_by_constants_before_it_divides_is_at_least_their_product():
    d = _draft(HALVED)
    values = {a.name: a.value for a in d.spec.args if not a.is_array}
    assert values["nb"] >= 6  # before: 3, so q = 0 and `% q` divides by zero
    assert "divided by 6" in dict(d.guesses)["args.nb"]


def test_a_long_chain_of_halvings_drafts_in_bounded_time():
    chain = "".join(f"    int h{k + 1} = h{k} / 2;\n" for k in range(400))
    nested = "(" * 300 + "nb" + " / 2)" * 300
    src = (
        "__global__ void deep(const int *d, int n, int nb, int *out) {\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i >= n) return;\n"
        "    int h0 = nb;\n" + chain + f"    out[i] = d[i] / h400 + d[i] % {nested};\n}}\n"
    )
    d = _draft(src)
    assert isinstance(next(a for a in d.spec.args if a.name == "nb").value, int)


SWAPPED = """
__global__ void smooth_steps(const float *in, int n, int steps, float *out) {
    extern __shared__ float buf[];
    float *a = buf;
    float *b = buf + n;
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] = in[row * n + i];
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        for (int i = threadIdx.x + 1; i < n - 1; i += blockDim.x)
            b[i] = 0.5f * a[i] + 0.25f * (a[i - 1] + a[i + 1]);
        __syncthreads();
        float *t = a;
        a = b;
        b = t;
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[row * n + i] = a[i];
}
"""


def test_pointers_a_loop_swaps_each_reach_what_either_reaches():
    d = _draft(SWAPPED)
    assert d.spec.smem_size == "8*n"  # before: 4*n, b's offset lost where the loop swaps it with a


LOCAL = """
#define MAX_ORDER 4
__global__ void poly_eval(const float *coef, const float *x, int n, int order, float *y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float c[MAX_ORDER];
    for (int k = 0; k < order; ++k) c[k] = coef[i * order + k];
    float acc = 0.0f;
    for (int k = order - 1; k >= 0; --k) acc = acc * x[i] + c[k];
    y[i] = acc;
}
"""


def test_a_count_that_bounds_a_loop_over_a_fixed_size_local_array_is_at_most_its_extent():
    d = _draft(LOCAL)
    for at in _points(d.spec):
        assert 1 <= at["order"] <= 4  # before: 3072, the loop writes c[4] and on
    assert "an array of 4" in dict(d.guesses)["sizes.order"]


DEFINED = """
#define LANES 4
__global__ void lanes_sum(const float *x, int n, float *y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v[LANES];
    for (int k = 0; k < LANES; ++k) v[k] = x[i * LANES + k];
    y[i] = v[0] + v[3];
}
"""


def test_a_defined_count_over_a_fixed_size_array_gets_no_cap_said():
    d = _draft(DEFINED)
    assert d.spec.sizes["LANES"] == 4 and "sizes.LANES" not in dict(d.guesses)  # fixed: nothing to check


B21_WRONG_FIRST = [
    "bm25_postings_atomic",
    "binomial_options_block",
    "biquad_cascade_interleaved",
    "lbm_d2q9_pull_pitched",
    "t5_relpos_bias_3d",
]


@pytest.mark.parametrize("name", B21_WRONG_FIRST)
def test_the_batch_21_drafts_first_wrong_now_match_their_truth(name):
    src = (CORPUS / f"{name}.cu").read_text()
    kernel = next(k for k in find_kernels(src) if k.name == drafts.truth_kernel_name(src, find_kernels(src)))
    spec = parse_spec(dump_spec(draft(kernel, src).spec), kernel)
    problems = judge.judge(spec, kernel, src, judge.load_truth(CORPUS / "truth" / f"{name}.toml"))
    assert [p for key in ("sizes", "outputs", "geometry", "scalars") for p in problems[key]] == []


def test_hostile_swaps_sums_and_nested_loops_draft_in_bounded_time():
    swaps = "".join(f"        p{k} = p{k + 1};\n" for k in range(300)) + "        p300 = p0;\n"
    sums = "".join(f"    a = b{k % 7};\n    b{k % 7} = a;\n" for k in range(600))
    nest = "".join(f"for (int c{k} = 0; c{k} < m; ++c{k}) " for k in range(120))
    src = (
        "#define E 8\n__global__ void hostile(const float *x, int n, int m, float *y) {\n"
        "    extern __shared__ float buf[];\n"
        + "".join(f"    float *p{k} = buf + {k} * n;\n" for k in range(301))
        + "    float t[E];\n    float a = 0.0f, b0 = x[0], b1 = x[1], b2 = x[2], b3 = 0, b4 = 0, b5 = 0, b6 = 0;\n"
        + sums
        + "    float s = 0.0f;\n    for (int i = 0; i < n; ++i) {\n        s += a;\n"
        + swaps
        + "    }\n    "
        + nest
        + "t[c119] = s;\n    y[0] = p7[n - 1] + x[1] / s + t[0];\n}\n"
    )
    d = _draft(src)
    assert d.spec.kernel == "hostile"
