"""Drafter rules made after seeing held-out batch 23, each on a kernel written here: an int array only tested
for truth (`valid[i] ? x : 0`, `!keep[i]`) is a flag, 0 or 1, even where the value it picks is then scaled;
a float array taken as `1 - v` beside v itself is a probability, in [0, 1); one weighting a log term is a
positive weight; a float scalar added to a constant that divides (`/ (1 + k)`) is a damping, not an
epsilon; a float compared with the magnitude of a difference of reads that nothing divides by is a
threshold on data drawn in [0, 1); a block whose thread 0 adds the block's sum with an atomic gets check
sizes of more than one block; a float multiplying a local in its own update in a loop is a discount near 1;
one whose complement scales a correction added back in place is a moving average's decay near 1; an int
added to a constant in both terms of a quotient is a count past a warmup; an int array a sigmoid is
subtracted from holds binary labels, 0 or 1."""

from __future__ import annotations

from .test_draft_shapes import _draft, _points


def _arg(d, name):
    return next(a for a in d.spec.args if a.name == name)


PICKED = """
__global__ void masked_scale(const float *x, const unsigned char *valid, int n, float s, float *y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float w = valid[i] ? 1.0f : 0.0f;
    y[i] = s * w * x[i];
}
"""


def test_bytes_that_only_pick_a_ternarys_branch_are_flags():
    valid = _arg(_draft(PICKED), "valid")
    assert (valid.low, valid.high) == (0, 2)  # before: 0..255, as if the byte were a quantity s scales


NEGATED = """
__global__ void keep_only(const float *x, const unsigned char *keep, int n, float *y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (!keep[i]) { y[i] = 0.0f; return; }
    y[i] = 2.0f * x[i];
}
"""


def test_bytes_negated_in_a_test_are_flags():
    keep = _arg(_draft(NEGATED), "keep")
    assert (keep.low, keep.high) == (0, 2)


def test_bytes_scaled_and_never_tested_keep_their_range():
    d = _draft(PICKED.replace("valid[i] ? 1.0f : 0.0f", "valid[i] * 0.5f"))
    assert (_arg(d, "valid").low, _arg(d, "valid").high) == (0, 256)


MIXED = """
__global__ void mix_rows(const float *a, const float *b, const float *w, int n, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float t = w[i];
    out[i] = (1.0f - t) * a[i] + t * b[i];
}
"""


def test_a_float_array_taken_as_one_minus_itself_and_as_a_factor_is_a_probability():
    d = _draft(MIXED)
    w = _arg(d, "w")
    assert (w.init, w.low, w.high) == ("uniform", 0, 1)  # before: [-100, 100), a mix that extrapolates
    assert _arg(d, "a").low is None


def test_a_float_array_only_taken_as_one_minus_itself_is_no_probability():
    d = _draft(MIXED.replace("(1.0f - t) * a[i] + t * b[i]", "(1.0f - t) + a[i] + b[i]"))
    assert _arg(d, "w").low is None


WEIGHTED_LOG = """
__global__ void weighted_nll(const float *x, const float *cw, int n, int k, float *loss) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float sp = log1pf(expf(-x[i]));
    loss[i] = (2.0f * cw[i % k] + 1.0f) * sp;
}
"""


def test_a_float_array_weighting_a_log_term_is_drawn_positive():
    cw = _arg(_draft(WEIGHTED_LOG), "cw")
    assert cw.init == "uniform" and 0 < cw.low < cw.high  # before: [-100, 100), weights of both signs


def test_a_float_array_weighting_an_exponential_is_not_drawn_positive():
    d = _draft(WEIGHTED_LOG.replace("log1pf(expf(-x[i]))", "expf(-x[i] * x[i])"))
    assert _arg(d, "cw").low is None


DAMPED = """
__global__ void damped_step(const float *a, const float *b, float *c, int n, float k) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    c[i] = (a[i] + k * b[i]) / (1.0f + k);
}
"""


def test_a_float_added_to_a_constant_that_divides_is_a_damping():
    d = _draft(DAMPED)
    assert 1e-3 <= _points(d.spec)[0]["k"] <= 0.2  # before: 1e-05, an epsilon the constant makes needless
    assert "damping" in dict(d.guesses)["args.k"]


def test_a_float_added_to_a_value_that_divides_stays_an_epsilon():
    d = _draft(DAMPED.replace("(1.0f + k)", "(fabsf(b[i]) + k)"))
    assert _points(d.spec)[0]["k"] <= 1e-4


SHARPENED = """
__global__ void sharpen_row(const float *a, int n, float t, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 1 || i >= n - 1) return;
    const float d = a[i] - 0.5f * (a[i - 1] + a[i + 1]);
    out[i] = fabsf(d) > t ? a[i] + 2.0f * d : a[i];
}
"""


def test_a_float_compared_with_a_difference_nothing_divides_by_is_a_threshold_on_unit_data():
    d = _draft(SHARPENED)
    a = _arg(d, "a")
    assert (a.init, a.low, a.high) == ("uniform", 0, 1)  # before: [-100, 100) and t = 1e-05: every value passed
    assert 1e-3 <= _points(d.spec)[0]["t"] <= 0.5


def test_a_float_compared_with_a_divisor_stays_a_tolerance():
    d = _draft(SHARPENED.replace("a[i] + 2.0f * d : a[i]", "a[i] / d : a[i]"))
    assert _points(d.spec)[0]["t"] <= 1e-4
    assert _arg(d, "a").low is None


BLOCK_SUMS = """
#define TB 128
__global__ void row_sums(const float *m, int len, int rows, float *sums) {
    __shared__ float part[TB];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y;
    part[threadIdx.x] = (i < len && r < rows) ? m[(size_t)r * len + i] : 0.0f;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0 && r < rows) atomicAdd(&sums[r], part[0]);
}
"""


def test_blocks_adding_partial_sums_get_check_sizes_of_more_than_one_block():
    d = _draft(BLOCK_SUMS)
    most = max(d.spec.tune_params["block_size_x"])
    for at in _points(d.spec):
        assert at["len"] > most  # before: a check at len = 37, one block a row: the atomic untested
    assert "atomic" in " ".join(w for k, w in d.guesses if k == "sizes.len")


def test_blocks_storing_their_partial_sums_keep_the_small_check():
    d = _draft(BLOCK_SUMS.replace("atomicAdd(&sums[r], part[0])", "sums[r * gridDim.x + blockIdx.x] = part[0]"))
    assert min(at["len"] for at in _points(d.spec)) < max(d.spec.tune_params["block_size_x"])


CARRIED = """
__global__ void discounted(const float *r, int steps, int n, float g, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int t = steps - 1; t >= 0; --t) {
        acc = r[(size_t)t * n + i] + g * acc;
        out[(size_t)t * n + i] = acc;
    }
}
"""


def test_a_float_multiplying_a_local_in_its_own_update_in_a_loop_is_a_discount_near_one():
    d = _draft(CARRIED)
    assert 0.9 <= _points(d.spec)[0]["g"] < 1  # before: 0.75, a discount that forgets within a few steps


def test_a_float_adding_to_a_carried_local_is_no_discount():
    d = _draft(CARRIED.replace("r[(size_t)t * n + i] + g * acc", "acc + g * r[(size_t)t * n + i]"))
    assert _points(d.spec)[0]["g"] < 0.9


AVERAGED = """
__global__ void track(float *m, const float *x, int n, float d) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float keep = 1.0f - d;
    m[i] = m[i] + keep * (x[i] - m[i]);
}
"""


def test_a_float_whose_complement_scales_a_correction_in_place_is_a_decay_near_one():
    d = _draft(AVERAGED)
    assert 0.9 <= _points(d.spec)[0]["d"] < 1  # before: 0.75
    assert "moving average" in dict(d.guesses)["args.d"]


def test_a_complement_stored_to_another_array_is_no_decay():
    d = _draft(AVERAGED.replace("m[i] = m[i] + keep * (x[i] - m[i]);", "m[i] = keep * x[i];"))
    assert _points(d.spec)[0]["d"] < 0.9


WARMUP = """
__global__ void warmed(const float *x, int n, int step, float *y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float r = (1.0f + step) / (5.0f + step);
    y[i] = r * x[i];
}
"""


def test_an_int_added_to_a_constant_in_both_terms_of_a_quotient_is_past_a_warmup():
    d = _draft(WARMUP)
    assert _points(d.spec)[0]["step"] >= 100000  # before: 3, the warmup ratio far from 1


def test_an_int_added_to_a_constant_in_one_term_keeps_its_value():
    d = _draft(WARMUP.replace("(5.0f + step)", "5.0f"))
    assert _points(d.spec)[0]["step"] < 100


LOGISTIC = """
__global__ void logistic_grad(const float *z, const short *y, const float *x, int n, float *g) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float p = 1.0f / (1.0f + expf(-z[i]));
    g[i] = ((float)y[i] - p) * x[i];
}
"""


def test_ints_a_sigmoid_is_subtracted_from_are_binary_labels():
    y = _arg(_draft(LOGISTIC), "y")
    assert (y.low, y.high) == (0, 2)  # before: all of int16, a target far outside the sigmoid's (0, 1)


def test_ints_an_exponential_is_subtracted_from_are_no_labels():
    y = _arg(_draft(LOGISTIC.replace("1.0f / (1.0f + expf(-z[i]))", "expf(-z[i])")), "y")
    assert (y.low, y.high) != (0, 2)
