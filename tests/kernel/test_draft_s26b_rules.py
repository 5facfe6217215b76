"""Drafter rules made after seeing held-out batch 26 again, each on a kernel written here: a local pointer
into a shared array at an offset that grows with the thread number (`float *mine = buf + threadIdx.x * W`)
caps the block at the threads the array holds; an element of a float array that starts a sum updated in
place and reaching `exp(a - b)` is a log-probability, drawn at most 0; an int only subtracted from a count in
a divisor (`n - dof`) is 1; an int that steps between rows read at `y * step + x` after a test `x < w` (in a
device function the kernel calls too) is at least `w`."""

from __future__ import annotations

from kt_tui.kernel.expr import evaluate

from .test_draft_shapes import _draft, _points


def _arg(d, name):
    return next(a for a in d.spec.args if a.name == name)


SLOTS = """
#define SLOTS 64
#define W 4
__global__ void slot_sums(const float *x, int n, float *out) {
    __shared__ float buf[SLOTS * W];
    float *mine = buf + threadIdx.x * W;
    for (int j = 0; j < W; ++j)
        mine[j] = 0.0f;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        mine[i % W] += x[(size_t)blockIdx.x * n + i];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int j = 0; j < SLOTS * W; ++j)
            s += buf[j];
        out[blockIdx.x] = s;
    }
}
"""


def test_a_pointer_into_a_shared_array_per_thread_caps_the_block():
    d = _draft(SLOTS)
    assert max(d.spec.tune_params["block_size_x"]) == 64  # before: up to 1024, past the 64 slots
    assert d.spec.defaults["block_size_x"] <= 64


def test_a_pointer_into_a_shared_array_at_a_fixed_offset_caps_nothing():
    d = _draft(SLOTS.replace("float *mine = buf + threadIdx.x * W;", "float *mine = buf + W;"))
    assert max(d.spec.tune_params["block_size_x"]) > 64


LOGS = """
#define C 4
__global__ void class_post(const float *feat, int n, int dim, const float *proto, const float *prior, float *post) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float score[C];
    float best = -1.0e30f;
    for (int c = 0; c < C; ++c) {
        float s = prior[c];
        for (int d = 0; d < dim; ++d) {
            const float e = feat[(size_t)i * dim + d] - proto[c * dim + d];
            s -= e * e;
        }
        score[c] = s;
        best = fmaxf(best, s);
    }
    for (int c = 0; c < C; ++c)
        post[(size_t)i * C + c] = expf(score[c] - best);
}
"""


def test_an_array_starting_a_sum_that_reaches_a_log_sum_exp_is_at_most_zero():
    a = _arg(_draft(LOGS), "prior")
    assert a.init == "uniform" and a.high == 0.0 and a.low < 0.0  # before: random, half of it above 0
    assert _arg(_draft(LOGS), "proto").init == "random"


def test_an_array_starting_a_sum_that_no_exponential_reads_is_left_alone():
    d = _draft(LOGS.replace("expf(score[c] - best)", "score[c] - best"))
    assert _arg(d, "prior").init == "random" and _arg(d, "prior").high is None


DOF = """
__global__ void spread(const float *x, int rows, int cols, int dof, float *out) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f, q = 0.0f;
    for (int r = 0; r < rows; ++r) {
        const float v = x[(size_t)r * cols + c];
        s += v;
        q += v * v;
    }
    out[c] = (q - s * s / rows) / (rows - dof);
}
"""


def test_an_int_only_subtracted_from_a_count_in_a_divisor_is_one():
    d = _draft(DOF)
    assert _arg(d, "dof").value == 1  # before: 3, a count of degrees of freedom no variance uses
    for at in _points(d.spec):
        assert at["rows"] > at["dof"] + 1


def test_an_int_subtracted_outside_a_divisor_is_left_alone():
    d = _draft(DOF.replace("/ (rows - dof)", "* (rows - dof)"))
    assert _arg(d, "dof").value != 1


PITCH = """
__device__ float fetch(const unsigned char *img, int pitch, int w, int h, int x, int y) {
    return (x >= 0 && x < w && y >= 0 && y < h) ? (float)img[(size_t)y * pitch + x] : 0.0f;
}

__global__ void remap(const unsigned char *img, int pitch, int w, int h, const float2 *map, float *out, int ow, int oh) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= ow || y >= oh) return;
    const float2 at = map[y * ow + x];
    out[y * ow + x] = fetch(img, pitch, w, h, (int)floorf(at.x), (int)floorf(at.y));
}
"""


def test_a_row_step_of_an_index_after_a_width_test_is_at_least_the_width():
    d = _draft(PITCH)
    for at in _points(d.spec):
        assert at["pitch"] >= at["w"]  # before: pitch 3 below w 5, rows overlapping
    assert evaluate(_arg(d, "pitch").value, d.spec.sizes) > evaluate(_arg(d, "w").value, d.spec.sizes)


def test_a_row_step_with_no_width_test_is_left_alone():
    d = _draft(PITCH.replace("x < w && ", ""))
    assert "pitch" not in {k.removeprefix("args.") for k, why in d.guesses if "steps between rows" in why}
