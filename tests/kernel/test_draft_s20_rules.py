"""Drafter rules made after seeing held-out batch 20, each on a kernel written here: an int compared with 0
or read inside a && or || is a flag too (0 or 1, not an arbitrary int); an int array whose values a position is
tested below holds lengths, from 1 to one past the last position; a tolerance added to a relative one and
compared with |a computed value| is small; a pitch over the rows a thread axis spans is at least the
axis's count, though a size is subtracted in it (`x > w - k` returns); `max(u, v) < n` bounds u and v, and a
stride of a block index alone steps whole matrices of columns another stride apart; a float that scales values
read into a displacement of a thread's coordinate moves it a few cells."""

from __future__ import annotations

from kt_tui.kernel.expr import evaluate

from .test_draft_shapes import _draft, _points

MODES = """
__global__ void pick_half(int lower, int keep_nan, int n, const float *a, float *out, unsigned char *same) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    if (lower != 0 ? j > i : j < i) return;
    const float v = a[j * n + i];
    same[j * n + i] = keep_nan || isnan(v);
    out[j * n + i] = v * 2.0f;
}
"""


def test_an_int_compared_with_zero_or_read_in_a_logical_and_is_a_flag():
    d = _draft(MODES)
    args = {a.name: a for a in d.spec.args}
    assert args["lower"].value == 1  # before: 3, an int that sizes nothing: branches of equal work
    assert args["keep_nan"].value == 1  # before: an int, read by || into a byte
    assert "flag" in dict(d.guesses)["args.lower"]


MASKED = """
__global__ void masked_rows(const float *x, const int *valid, int rows, int width, float *y) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y;
    if (c >= width || r >= rows) return;
    if (c < valid[r]) y[r * width + c] = x[r * width + c] * 3.0f;
    else y[r * width + c] = 0.0f;
}
"""


def test_an_int_array_a_position_is_tested_below_holds_lengths_up_to_one_past_the_last_position():
    d = _draft(MASKED)
    valid = next(a for a in d.spec.args if a.name == "valid")
    assert (valid.low, valid.high) == (1, "width + 1")  # before: no range (any int)
    assert "lengths" in dict(d.guesses)["args.valid"]


NEAR = """
__global__ void near(const float *u, const float *v, int n, float rel, float abs_tol, float *err) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float d = u[i] * 2.0f - v[i];
    err[i] = fabsf(d) > rel * fabsf(v[i]) + abs_tol ? d : 0.0f;
}
"""


def test_a_tolerance_added_to_a_relative_one_against_a_computed_magnitude_is_small():
    d = _draft(NEAR)
    args = {a.name: a for a in d.spec.args}
    assert args["abs_tol"].value == 1e-3  # before: 1.5, over most |d| of standard normal data
    assert args["rel"].value == 0.75  # a product, not a term of the sum: left as it was
    assert "absolute tolerance" in dict(d.guesses)["args.abs_tol"]


VALID = """
__global__ void box_valid(const float *in, int w, int h, int k, float *out, int out_pitch) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x > w - k || y > h - k) return;
    float s = 0.0f;
    for (int d = 0; d < k; ++d) s += in[(y + d) * w + x + d];
    out[y * out_pitch + x] = s;
}
"""


def test_a_pitch_over_rows_a_thread_axis_spans_is_at_least_the_axis_though_a_size_is_subtracted_in_it():
    d = _draft(VALID)
    pitch = next(a for a in d.spec.args if a.name == "out_pitch")
    for at in [d.spec.sizes, *_points(d.spec)]:
        # before: a size of its own, 80 at w = 128 (below the w - k + 1 results of a row)
        assert evaluate(str(pitch.value), at) >= at["w"] - at["k"] + 2
    assert "steps from one item" in dict(d.guesses)["args.out_pitch"]


SWAP = """
__global__ void swap_cols(float *A, int rows, int cols, int ld, long long bstride, int nb, const int *c0,
                          const int *c1) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y;
    if (i >= rows || b >= nb) return;
    const int u = c0[b], v = c1[b];
    if (min(u, v) < 0 || max(u, v) >= cols) return;
    float *a = A + b * bstride;
    const float t = a[u * ld + i];
    a[u * ld + i] = a[v * ld + i];
    a[v * ld + i] = t;
}
"""


def test_columns_a_max_tests_below_a_size_and_a_block_index_stride_step_whole_matrices():
    d = _draft(SWAP)
    args = {a.name: a for a in d.spec.args}
    assert (args["c0"].low, args["c0"].high) == (0, "cols")  # max(u, v) < cols: each below it
    for at in [d.spec.sizes, *_points(d.spec)]:
        ld, step = evaluate(str(args["ld"].value), at), evaluate(str(args["bstride"].value), at)
        assert ld >= at["rows"]  # before: a size of its own (3)
        assert step >= at["cols"] * ld  # before: 5; A sized at random, not (nb - 1) * bstride + ...
        assert evaluate(str(args["A"].size), at) >= (at["nb"] - 1) * step + (at["cols"] - 1) * ld + at["rows"]


TRACED = """
__global__ void trace_back(const float *q, const float *u, int n, float c, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float p = i - c * u[i];
    const int j = max(min((int)p, n - 1), 0);
    out[i] = q[j];
}
"""


def test_a_float_that_scales_values_read_into_a_coordinate_s_displacement_is_a_few_cells():
    d = _draft(TRACED)
    c = next(a for a in d.spec.args if a.name == "c")
    assert c.value == 2.0  # before: -2.0, taken for the origin of a coordinate (traces that move backwards)
    assert "displacement" in dict(d.guesses)["args.c"]
