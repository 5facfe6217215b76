"""An int scalar tested against a masked or reduced value (kernel/draft_masked.py): the draft keeps it
within the value's range, and a spec outside it is warned."""

import dataclasses

from kt_tui.kernel import cuda_ast, draft_masked
from kt_tui.kernel.draft_flags import layout_warnings

from .test_draft_shapes import _draft

# one colour of a checkerboard: sites where (x + y) & 1 is `color` are updated
PARITY = """
__global__ void relax_color(float *u, const float *f, int nx, int ny, int color)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1)
        return;
    const int parity = (x + y) & 1;
    if (parity != color)
        return;
    u[y * nx + x] = 0.25f * (u[y * nx + x - 1] + u[y * nx + x + 1] + u[(y - 1) * nx + x] + u[(y + 1) * nx + x] - f[y * nx + x]);
}
"""

# one lane of each warp writes the warp's value
LEADER = """
__global__ void warp_pick(const float *x, float *out, int n, int leader)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (threadIdx.x % 32 == leader)
        out[i / 32] = x[i];
}
"""


def _value(d, name):
    return next(a.value for a in d.spec.args if a.name == name)


def test_a_scalar_tested_against_a_parity_or_a_lane_is_drafted_within_its_range():
    d = _draft(PARITY)
    assert _value(d, "color") in (0, 1)
    assert any(key == "args.color" and "0 to 1" in why for key, why in d.guesses)
    d = _draft(LEADER)
    assert 0 <= _value(d, "leader") <= 31


def test_a_spec_outside_the_range_is_warned_and_one_inside_is_not():
    d = _draft(PARITY)
    kernel = "relax_color"
    assert not [w for w in layout_warnings(PARITY, kernel, d.spec) if "args.color" in w]
    outside = dataclasses.replace(
        d.spec, args=[dataclasses.replace(a, value=3) if a.name == "color" else a for a in d.spec.args]
    )
    said = [w for w in layout_warnings(PARITY, kernel, outside) if "args.color" in w]
    assert said and "color = 3" in said[0] and "a value from 0 to 1" in said[0]


def test_a_mask_wider_than_a_small_set_or_a_scalar_modulus_is_no_range():
    fn = cuda_ast.parse(LEADER.replace("% 32", "% n")).kernels["warp_pick"]
    assert draft_masked.find(fn, {"n", "leader"}) == []
    fn = cuda_ast.parse(LEADER.replace("threadIdx.x % 32", "(i & 0xfffffff)")).kernels["warp_pick"]
    assert draft_masked.find(fn, {"n", "leader"}) == []
