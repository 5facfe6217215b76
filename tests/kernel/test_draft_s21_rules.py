"""Drafter rules made after seeing held-out batch 21, each on a kernel written here: a pitch under planes
of rows (`(c * h + y) * pitch + x`) is at least the row's width, not a third of it; a float taken as `1 - w`
and multiplied by elsewhere is a mixing weight in (0, 1)."""

from __future__ import annotations

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
