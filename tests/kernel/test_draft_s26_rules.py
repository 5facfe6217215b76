"""Drafter rules made after seeing held-out batch 26, each on a kernel written here: a float array a value
is divided by (`x[i] / s[c]`, through casts) is drawn positive, and a log or square root reached through a
local pointer into an array (`const float *v = vars + k * dim; logf(v[d])`) draws that array positive."""

from __future__ import annotations

from .test_draft_shapes import _draft

DIVIDED = """
__global__ void normalize(const double *x, const double *s, int groups, long long n, double *y) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        y[i] = (double)x[i] / (double)s[i % groups];
}
"""

SCALED = """
__global__ void rescale(const float *x, const float *s, int groups, int n, float *y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * s[i % groups];
}
"""

ROWS_LOG = """
__global__ void row_logs(const float *a, int rows, int cols, float *out) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float *v = a + (size_t)r * cols;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += logf(v[c]);
    out[r] = acc;
}
"""


def _positive(d, name) -> bool:
    a = next(a for a in d.spec.args if a.name == name)
    return a.init == "positive" or (isinstance(a.low, (int, float)) and a.low > 0)


def test_an_array_a_value_is_divided_by_is_drawn_positive():
    assert _positive(_draft(DIVIDED), "s")  # before: [-100, 100), quotients blowing up near 0
    assert not _positive(_draft(DIVIDED), "x")  # the dividend keeps its sign
    assert not _positive(_draft(SCALED), "s")  # a factor: both signs


def test_a_log_through_a_local_pointer_draws_the_array_positive():
    assert _positive(_draft(ROWS_LOG), "a")  # before: [-100, 100), NaN rows
