"""Drafter rules made after seeing held-out batch 21, each on a kernel written here: a pitch under planes
of rows (`(c * h + y) * pitch + x`) is at least the row's width, not a third of it."""

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
