"""Drafter rules made after seeing held-out batch 22, each on a kernel written here: a float compared with
a difference in a loop's test (`while (hi - lo > tol)`) is a small stopping width; a float array only ordered against a float scalar
(`u[i] < p`) is a uniform draw in [0, 1); bytes scaled by a float constant (`p.x / 255.0f`) are drawn over 0..255; a float array
added to a positive constant that divides (`x / (w + 1.0f)`) is drawn positive; a float whose log lowers a compared cut
(`x >= m + t * logf(p)`) is a small fraction; an int that
steps a local pointer's rows read below a span (`a = v + r * ld; a[j], j < dim`) is at least that span; a float
scaling a correction added back in place (`u[c] += w * (g - u[c])`) over-relaxes, in (1, 2); an int whose parity picks
the cells (`x = 2 * i + ((y + color) & 1)`) is 0 or 1; an int array read into a local
the kernel compares with constants and sets to constants before writing it out (a state) is drawn over every state; a float
scaling the updated element in its own update (`w[j] -= s * (g[j] + c * w[j])`) is a small decay; a float only divided by a float
constant above 1 (`deg / 60.0f`) is a fraction of that constant."""

from __future__ import annotations

from .test_draft_shapes import _draft, _points

BISECT = """
__global__ void cube_roots(const float *a, int n, float eps, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float lo = 0.0f, hi = fmaxf(1.0f, fabsf(a[i]));
    while (hi - lo > eps) {
        const float m = 0.5f * (lo + hi);
        if (m * m * m > fabsf(a[i])) hi = m; else lo = m;
    }
    out[i] = lo;
}
"""


def test_a_float_a_loop_compares_with_a_difference_is_a_small_stopping_width():
    d = _draft(BISECT)
    for at in _points(d.spec):
        assert 1e-5 <= at["eps"] <= 1e-2  # before: 0.75, most of a bracket of width ~1: the loop stopped at once
    assert "loop's test" in dict(d.guesses)["args.eps"]


BREAK = """
__global__ void newton_steps(const float *x0, int n, float stop, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = x0[i], prev = x + 1.0f;
    for (int k = 0; k < 50; ++k) {
        if (prev - x < stop) break;
        prev = x;
        x = 0.5f * (x + 2.0f / x);
    }
    out[i] = x;
}
"""


def test_a_float_an_if_break_compares_with_a_difference_is_a_small_stopping_width():
    d = _draft(BREAK)
    assert 1e-5 <= _points(d.spec)[0]["stop"] <= 1e-2


SPLIT = """
__global__ void split_gap(const float *a, const float *b, int n, float gap, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = a[i] - b[i] > gap ? a[i] : b[i];
}
"""


def test_a_float_compared_with_a_difference_outside_a_loop_test_keeps_its_made_up_value():
    d = _draft(SPLIT)
    assert _points(d.spec)[0]["gap"] > 0.1


DRAW = """
__global__ void survive(const float *r, const float *age, int n, float q, float *alive) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float t = r[i];
    alive[i] = t < 1.0f - expf(-q) ? 0.0f : 2.0f * age[i];
}
"""


def test_a_float_array_only_ordered_against_a_float_scalar_is_a_uniform_draw():
    d = _draft(DRAW)
    r = next(a for a in d.spec.args if a.name == "r")
    assert (r.init, r.low, r.high) == ("uniform", 0, 1)  # before: standard normal, below the probability mostly
    age = next(a for a in d.spec.args if a.name == "age")
    assert age.low is None  # data, only read into arithmetic


def test_a_float_array_ordered_against_another_array_is_no_draw():
    d = _draft(DRAW.replace("1.0f - expf(-q)", "age[i] * q"))
    assert next(a for a in d.spec.args if a.name == "r").low is None


BYTES = """
__global__ void luma(const uchar4 *img, int pitch, int w, int h, float k, float *lum) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const uchar4 p = ((const uchar4 *)((const char *)img + (size_t)y * pitch))[x];
    const float r = p.x / 255.0f, g = p.y / 255.0f;
    const float c = fmaxf(r, g) - fminf(r, g);
    lum[y * w + x] = c > 0.0f ? k * (r - g) / c : 0.0f;
}
"""


def test_bytes_scaled_by_a_float_constant_are_drawn_over_all_their_range():
    d = _draft(BYTES)
    px = next(a for a in d.spec.args if a.name == "img")
    assert (px.low, px.high) == (0, 256)  # before: 0 or 1, bytes taken for flags as c, made of them, is compared with 0
    assert not any(w.startswith("values 0 or 1") for g, w in d.guesses if g == "args.img")


FLAGS = """
__global__ void count_set(const unsigned char *m, int n, int *count) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && m[i] == 1) atomicAdd(count, 1);
}
"""


def test_bytes_compared_with_a_constant_and_never_scaled_stay_flags():
    m = next(a for a in _draft(FLAGS).spec.args if a.name == "m")
    assert (m.low, m.high) == (0, 2)


RUNNING_MEAN = """
__global__ void blend_in(float *mean, float *count, const float *x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float c = count[i];
    mean[i] = (mean[i] * c + x[i]) / (c + 1.0f);
    count[i] = c + 1.0f;
}
"""


def test_a_float_array_added_to_a_positive_constant_that_divides_is_drawn_positive():
    d = _draft(RUNNING_MEAN)
    assert next(a for a in d.spec.args if a.name == "count").init == "positive"  # before: [-100, 100), near -1 blows up
    assert next(a for a in d.spec.args if a.name == "mean").init != "positive"


LOG_CUT = """
__global__ void keep_near_top(const float *s, int n, float top, float frac, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float cut = top + logf(frac);
    out[i] = s[i] >= cut ? s[i] : 0.0f;
}
"""


def test_a_float_whose_log_lowers_a_compared_cut_is_a_small_fraction():
    d = _draft(LOG_CUT)
    assert 0 < _points(d.spec)[0]["frac"] <= 0.5  # before: 0.625, a cut close to the top value
    assert "log" in dict(d.guesses)["args.frac"]


def test_a_float_whose_log_scales_an_exponent_is_no_cut():
    d = _draft(LOG_CUT.replace("const float cut = top + logf(frac);", "const float cut = expf(-logf(frac) * i / n);"))
    assert "log" not in dict(d.guesses)["args.frac"]


GATHERED_ROWS = """
__global__ void pair_dots(const float *v, int stride, int len, const int *pairs, int npairs, float *out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= npairs) return;
    const float *a = v + (size_t)pairs[2 * t] * stride;
    const float *b = v + (size_t)pairs[2 * t + 1] * stride;
    float s = 0.0f;
    for (int j = 0; j < len; ++j)
        s += a[j] * b[j];
    out[t] = s;
}
"""


def test_a_stride_of_a_pointers_rows_read_below_a_span_is_at_least_the_span():
    d = _draft(GATHERED_ROWS)
    for at in _points(d.spec):
        assert at["stride"] > at["len"]  # before: 3, an int of no role: rows of len overlapped
    assert "at least len" in dict(d.guesses)["args.stride"]


CHECKER = """
__global__ void gs_pass(float *v, const float *b, int w, int h, float k, int pass) {
    const int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    const int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + 1 + ((y + pass) & 1);
    if (x >= w - 1 || y >= h - 1) return;
    const int c = y * w + x;
    const float g = 0.25f * (v[c - 1] + v[c + 1] + v[c - w] + v[c + w] + b[c]);
    v[c] += k * (g - v[c]);
}
"""


def test_a_factor_of_a_correction_added_back_in_place_over_relaxes():
    d = _draft(CHECKER)
    at = _points(d.spec)[0]
    assert 1 < at["k"] < 2  # before: 0.1, a stencil step
    assert at["pass"] in (0, 1)  # its parity picks the cells


def test_a_factor_of_a_correction_written_elsewhere_is_no_over_relaxation():
    src = CHECKER.replace("float *v, const float *b", "const float *v, const float *b, float *o")
    d = _draft(src.replace("v[c] += k * (g - v[c]);", "o[c] = v[c] + k * (g - v[c]);"))
    assert not 1 < _points(d.spec)[0]["k"] < 2


STATES = """
__global__ void age_cells(const int *cell, const float *r, int n, float p, int *next) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int s = cell[i];
    if (s == 1 && r[i] < p) s = 2;
    else if (s == 2) s = 3;
    else if (s != 0 && s != 1) s = 0;
    next[i] = s;
}
"""


def test_an_int_array_read_into_a_state_the_kernel_steps_is_drawn_over_every_state():
    d = _draft(STATES)
    cell = next(a for a in d.spec.args if a.name == "cell")
    assert (cell.low, cell.high) == (0, 4)  # before: 0 or 1, states 2 and 3 never drawn
    assert "state" in dict(d.guesses)["args.cell"]


def test_an_int_array_compared_with_constants_and_never_stepped_stays_flags():
    d = _draft(STATES.replace("next[i] = s;", "next[i] = s == 3;"))
    assert next(a for a in d.spec.args if a.name == "cell").high == 2


DECAYED = """
__global__ void sgd_decay(float *w, const float *g, int n, float lr, float lam) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    w[i] -= lr * (g[i] + lam * w[i]);
}
"""


def test_a_float_scaling_the_updated_element_in_its_own_update_is_a_small_decay():
    d = _draft(DECAYED)
    at = _points(d.spec)[0]
    assert 0 < at["lam"] <= 0.1  # before: 0.625, a decay that outweighs the gradient
    assert "decay" not in dict(d.guesses)["args.lr"]


def test_a_float_scaling_another_array_in_an_update_is_no_decay():
    d = _draft(
        DECAYED.replace("float lr, float lam", "const float *m, float lr, float lam").replace(
            "lam * w[i]", "lam * m[i]"
        )
    )
    assert "decay" not in dict(d.guesses)["args.lam"]


UNITS = """
__global__ void spin(const float *x, const float *y, int n, float angle_deg, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float t = angle_deg / 57.29578f;
    out[i] = cosf(t) * x[i] - sinf(t) * y[i];
}
"""


def test_a_float_only_divided_by_a_constant_above_1_is_a_fraction_of_that_constant():
    d = _draft(UNITS)
    assert 10 < _points(d.spec)[0]["angle_deg"] < 57.3  # before: 0.75, a sliver of a radian
    assert "divided by 57.2958" in dict(d.guesses)["args.angle_deg"]


def test_a_float_divided_by_a_constant_and_used_otherwise_keeps_its_made_up_value():
    d = _draft(UNITS.replace("cosf(t) * x[i]", "angle_deg * x[i]"))
    assert _points(d.spec)[0]["angle_deg"] < 1
