"""kernel/draft_radix.py on kernels written here (and the corpus's band solver of batch 27), one per kind
of relation: strides of a mixed-radix layout
(a leading dimension at least the column's rows, a batch stride at least the matrix it steps over, a row
step read after a width test in a device function), a difference of two scalars in a bound (the one taken
away below the other), an anchor inside the window it shifts; each held at the default and every check
size."""

from __future__ import annotations

from pathlib import Path

from kt_tui.kernel.expr import evaluate

from .test_draft_shapes import _draft, _points

PANEL = """
__global__ void panel_update(double *A, int n, int lda, long long strideA, int p, int batch)
{
    const int i = p + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const int j = p + 1 + blockIdx.y * blockDim.y + threadIdx.y;
    const int b = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= n || j >= n || b >= batch)
        return;
    double *a = A + b * strideA;
    a[i + (size_t)j * lda] += a[i + (size_t)p * lda] * a[p + (size_t)j * lda];
}
"""


def test_a_leading_dimension_and_a_batch_stride_do_not_overlap_their_items():
    d = _draft(PANEL)
    for at in _points(d.spec):
        assert at["lda"] > at["n"]  # before: lda = 5 beside n = 128
        assert at["strideA"] >= at["lda"] * at["n"]  # before: 2


BAND = (Path(__file__).parents[1] / "corpus" / "tbsv_lower_band_batched.cu").read_text()  # band storage, strideAB outer


def test_a_stride_added_to_the_pointer_is_the_outer_one():
    d = _draft(BAND)
    for at in _points(d.spec):
        assert at["n"] <= at["ldab"] < 1000  # before: ldab grew with batch * strideAB
        assert at["strideAB"] >= at["ldab"] * at["n"]
        assert at["ldx"] >= at["batch"]


TAIL = """
__global__ void causal_max(const float *s, int rows, int qn, int kn, float *o)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows * qn)
        return;
    const int q = row % qn;
    const int stop = q + kn - qn;
    float m = -1.0e30f;
    for (int j = 0; j <= stop; ++j)
        m = fmaxf(m, s[(size_t)row * kn + j]);
    o[row] = m;
}
"""


def test_a_scalar_taken_away_from_another_in_a_bound_is_below_it():
    d = _draft(TAIL)
    for at in _points(d.spec):
        assert at["qn"] < at["kn"]  # before: qn = 384 above kn = 320


ANCHOR = """
__global__ void erode_anchor(const float *src, int w, int h, int kw, int kh, int ax, int ay, float *dst)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    float m = 1.0e30f;
    for (int j = 0; j < kh; ++j) {
        const int yy = y + j - ay;
        for (int i = 0; i < kw; ++i) {
            const int xx = x + i - ax;
            if (xx >= 0 && xx < w && yy >= 0 && yy < h)
                m = fminf(m, src[(size_t)yy * w + xx]);
        }
    }
    dst[(size_t)y * w + x] = m;
}
"""


def test_an_anchor_is_inside_the_window_it_shifts():
    d = _draft(ANCHOR)
    for at in _points(d.spec):
        assert 0 <= at["ax"] < at["kw"]  # before: 7 beside a window of 5
        assert 0 <= at["ay"] < at["kh"]


MIRROR = """
__device__ int mirror(int v, int n)
{
    if (v < 0)
        return -v;
    if (v >= n)
        return 2 * n - 2 - v;
    return v;
}

__global__ void shift_left(const unsigned char *src, int width, int height, int step, unsigned char *dst)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int sx = mirror(x - 2, width);
    dst[(size_t)y * width + x] = src[(size_t)y * step + sx];
}
"""


def test_a_row_step_read_with_a_column_a_device_function_bounds_is_past_the_width():
    d = _draft(MIRROR)
    for at in _points(d.spec):
        assert at["step"] > at["width"]  # before: 3


SIGNALS = """
__global__ void dft_batched(const float2 *in, int istride, int idist, float2 *out, int nfft, int batch)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (k >= nfft || b >= batch)
        return;
    const float2 *x = in + (size_t)b * idist;
    float2 acc = make_float2(0.0f, 0.0f);
    for (int n = 0; n < nfft; n++) {
        const float2 v = x[(size_t)n * istride];
        acc.x += v.x * (k + 1);
        acc.y += v.y;
    }
    out[(size_t)b * nfft + k] = acc;
}
"""


def test_a_spacing_between_elements_is_the_inner_stride_and_the_signals_do_not_overlap():
    d = _draft(SIGNALS)
    signal = next(a for a in d.spec.args if a.name == "in")
    for at in _points(d.spec):
        assert at["istride"] < at["nfft"]  # before: istride = batch * idist + 32, the signals interleaved
        assert at["idist"] >= (at["nfft"] - 1) * at["istride"] + 1
        reach = (at["batch"] - 1) * at["idist"] + (at["nfft"] - 1) * at["istride"] + 1
        assert reach <= evaluate(signal.size, at) <= 2 * reach  # the length follows the strides that moved


FLAT = """
__global__ void strided_gather(const float *in, int N, int C, int H, int W, int sn, int sc, int sh, int sw, float *out)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N * C * H * W)
        return;
    const int w = idx % W;
    const int h = (idx / W) % H;
    const int c = (idx / (W * H)) % C;
    const int n = idx / (W * H * C);
    out[idx] = in[n * sn + c * sc + h * sh + w * sw];
}
"""


def test_strides_over_the_parts_of_one_flat_index_nest_as_the_divisions_do():
    d = _draft(FLAT)
    for at in _points(d.spec):  # before: sw = C*H*N*sc + ..., the spacing of elements outermost
        assert at["sh"] >= (at["W"] - 1) * at["sw"] + 1
        assert at["sc"] >= (at["H"] - 1) * at["sh"] + (at["W"] - 1) * at["sw"] + 1
        assert at["sn"] >= (at["C"] - 1) * at["sc"] + (at["H"] - 1) * at["sh"] + (at["W"] - 1) * at["sw"] + 1
        assert at["sw"] < at["W"]


PLANES = """
__global__ void planes_copy(const float *in, int N, int C, int H, int W, long long sn, long long sc, int sh, float *out)
{
    const int w = blockIdx.x * blockDim.x + threadIdx.x;
    const int h = blockIdx.y * blockDim.y + threadIdx.y;
    const int nc = blockIdx.z;
    if (w >= W || h >= H || nc >= N * C)
        return;
    const int n = nc / C, c = nc % C;
    out[((size_t)nc * H + h) * W + w] = in[n * sn + c * sc + (size_t)h * sh + w];
}
"""


def test_a_quotients_stride_is_outer_to_the_remainders():
    d = _draft(PLANES)
    for at in _points(d.spec):  # before: sn = 2, sc = 3, every plane overlapping
        assert at["sc"] >= (at["H"] - 1) * at["sh"] + at["W"]
        assert at["sn"] >= (at["C"] - 1) * at["sc"] + (at["H"] - 1) * at["sh"] + at["W"]


FIR = """
#define TAPS 3
__global__ void fir_anchor(const float *x, int n, const float *h, int center, float *y)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < TAPS; ++k) {
        const int s = t + k - center;
        if (s >= 0 && s < n)
            acc += h[k] * x[s];
    }
    y[t] = acc;
}
"""


def test_an_anchor_is_inside_a_window_a_define_sizes():
    d = _draft(FIR)
    for at in _points(d.spec):
        assert 0 <= at["center"] < 3  # before: 5


# the relations written only inside a subscript (the grammar wraps an index in a subscript_argument_list,
# which the walk once took for the index: no sum, no relation)
FIR_INLINE = """
#define TAPS 3
__global__ void fir_inline(const float *x, int n, const float *h, int center, float *y)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < TAPS; ++k)
        if (t + k >= center && t + k < n + center)
            acc += h[k] * x[t + k - center];
    y[t] = acc;
}
"""


def test_an_anchor_written_only_inside_a_subscript_is_inside_its_window():
    d = _draft(FIR_INLINE)
    for at in _points(d.spec):
        assert 0 <= at["center"] < 3  # before: 256
    assert any("shifts the counter of a loop over TAPS (`t + k - center`)" in why for _, why in d.guesses)


TAIL_INLINE = """
__global__ void tail_copy(const float *s, int rows, int qn, int kn, float *o)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    o[row] = s[row + kn - qn];
}
"""


def test_a_difference_written_only_inside_a_subscript_keeps_the_one_taken_away_below():
    d = _draft(TAIL_INLINE)
    for at in _points(d.spec):
        assert at["qn"] < at["kn"]  # before: qn = 5 above kn = 3
    assert any("takes qn away from kn in an index or bound" in why for _, why in d.guesses)
