"""A `#define` of 0 or 1 is a number the analysis reads like any other (ux20, session 20: with `#define R
1` in a stencil's guard `x < w - R`, the draft lost the guard, made up nx and ny, and drafted h = 3)."""

from __future__ import annotations

from kt_tui.kernel import cuda_ast

from .test_draft_shapes import _draft

HALO_ONE = """
#define HALO 1
#define OFFSET 0
__global__ void smooth(float *out, const float *in, int nx, int ny) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x + OFFSET;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= HALO && j >= HALO && i < nx - HALO && j < ny - HALO)
        out[j * nx + i] = 0.25f * (in[j * nx + i - 1] + in[j * nx + i + 1] + in[(j - 1) * nx + i] + in[(j + 1) * nx + i]);
}
"""


def test_defines_of_zero_and_one_are_read():
    assert {"HALO": 1, "OFFSET": 0}.items() <= cuda_ast.parse(HALO_ONE).defines.items()
    d = _draft(HALO_ONE)
    assert [str(p) for p in d.spec.problem_size] == ["nx - HALO - OFFSET", "ny - HALO"]  # before: made-up sizes
    assert d.spec.sizes["nx"] >= 64 and d.spec.sizes["ny"] >= 64
