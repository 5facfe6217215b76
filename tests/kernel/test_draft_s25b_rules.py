"""Drafter rules made after seeing held-out batches 24 and 25 again, each on a kernel written here: a row read
at a column loaded from an int array that also picks an element of an array as long as a size is a label
below that size, the rows' stride that size padded (and the array it picks, scaling the row's element, a
positive weight); the difference of two float scalars that scales is a range's width, its first above its
second; a 3-D volume of planes whose sides are exact quotients is analysed (its index polynomial's degree
is 7); an int taken modulo half of another is a sorting network's stride within merges, both powers of two;
a float read, split by a degree and scattered with atomics is a mass in [0, 1); a state only run through
xorshift steps is never 0."""

from __future__ import annotations

from kt_tui.kernel.expr import evaluate

from .test_draft_shapes import _draft, _points


def _arg(d, name):
    return next(a for a in d.spec.args if a.name == name)


def _value(d, name, at):
    a = _arg(d, name)
    return evaluate(a.value, at)


LABELLED = """
__global__ void pick_scores(const float *scores, int stride, const int *label, const float *scale, int n,
                            int nlabels, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int c = label[i];
    out[i] = scale[c] * scores[(size_t)i * stride + c];
}
"""


def test_a_label_picking_a_rows_column_and_an_element_bounds_the_rows_stride():
    d = _draft(LABELLED)
    label = _arg(d, "label")
    assert label.high == "nlabels"  # before: min(stride, nlabels), the stride a made-up 3
    for at in _points(d.spec):
        assert at["stride"] > at["nlabels"] >= 2
        assert evaluate(_arg(d, "scores").size, at) <= 4 << 20  # fewer rows as the stride grew
    assert _arg(d, "scale").init == "positive"  # a class weight scaling the picked element


def test_a_label_that_only_picks_a_column_leaves_the_stride_alone():
    d = _draft(LABELLED.replace("scale[c] * ", "scale[i] * "))
    assert _arg(d, "scale").init == "random"
    assert "stride" not in d.spec.sizes or d.spec.sizes["stride"] < 32  # no row of a label's width found


RANGE = """
__global__ void rescale(const float *x, int n, float lo, float hi, float *y) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = lo + (hi - lo) * x[i];
}
"""


def test_a_scaling_difference_of_two_floats_puts_the_first_above_the_second():
    for src in (RANGE, RANGE.replace("float lo, float hi", "float hi, float lo")):
        d = _draft(src)
        assert _arg(d, "hi").value > _arg(d, "lo").value


def test_a_difference_that_only_adds_leaves_the_order_alone():
    d = _draft(
        RANGE.replace("float lo, float hi", "float hi, float lo").replace("(hi - lo) * x[i]", "(hi - lo) + x[i]")
    )
    first = _draft(RANGE.replace("float lo, float hi", "float hi, float lo").replace("(hi - lo) * x[i]", "x[i]"))
    assert (_arg(d, "hi").value, _arg(d, "lo").value) == (_arg(first, "hi").value, _arg(first, "lo").value)


VOLUME = """
__global__ void pool3(const float *src, int planes, int d, int h, int w, int k, int s, float *dst) {
    const int od = (d - k) / s + 1;
    const int oh = (h - k) / s + 1;
    const int ow = (w - k) / s + 1;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int pz = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= ow || y >= oh || pz >= planes * od) return;
    const int p = pz / od;
    const int z = pz % od;
    float m = 0.0f;
    for (int a = 0; a < k; ++a)
        for (int b = 0; b < k; ++b)
            for (int c = 0; c < k; ++c)
                m = fmaxf(m, src[(size_t)p * d * h * w + ((size_t)(z * s + a) * h + (y * s + b)) * w + (x * s + c)]);
    dst[((size_t)pz * oh + y) * ow + x] = m;
}
"""


def test_planes_of_a_volume_with_three_divided_sides_are_analysed():
    d = _draft(VOLUME)
    assert len(d.spec.problem_size) == 3  # before: the analysis stopped (degree 7), one axis of n
    for at in _points(d.spec):
        side = {n: _value(d, n, at) for n in ("d", "h", "w")}
        assert max(side.values()) < 1000  # each side a few hundred at most, not the whole size


def test_a_plane_of_two_divided_sides_was_and_is_analysed():
    d = _draft(VOLUME.replace("(size_t)p * d * h * w + ", "").replace("z * s + a", "z + a"))
    assert len(d.spec.problem_size) == 3


MERGE = """
__global__ void merge_pass(int *keys, int n, int block, int step) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int start = step % (block / 2);
    const int y = x + step;
    if (x < start || y >= n) return;
    if ((x - start) % (2 * step) >= step || x / block != y / block) return;
    const int a = keys[x], b = keys[y];
    if (a > b) { keys[x] = b; keys[y] = a; }
}
"""


def test_a_stride_taken_modulo_half_a_block_is_a_networks_power_of_two():
    d = _draft(MERGE)
    for at in _points(d.spec):
        step, block = _value(d, "step", at), _value(d, "block", at)
        assert block >= 8 and block & (block - 1) == 0
        assert 2 <= step <= block // 4 and step & (step - 1) == 0


def test_a_stride_taken_modulo_a_whole_int_is_left_alone():
    before = _draft(MERGE.replace("step % (block / 2)", "step % 3"))
    after = _draft(MERGE.replace("step % (block / 2)", "step % block"))
    assert _arg(before, "block").value == _arg(after, "block").value


PUSH = """
__global__ void push(const int *offs, const int *dst, const float *mass, int n, float *acc) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const int lo = offs[v], hi = offs[v + 1];
    if (hi == lo) return;
    const float part = mass[v] / (float)(hi - lo);
    for (int e = lo; e < hi; ++e)
        atomicAdd(&acc[dst[e]], part);
}
"""


def test_a_value_split_by_a_degree_and_scattered_is_a_mass_in_0_1():
    mass = _arg(_draft(PUSH), "mass")
    assert (mass.init, mass.low, mass.high) == ("uniform", 0.0, 1.0)  # before: random, both signs


def test_a_value_split_by_a_float_is_left_alone():
    d = _draft(
        PUSH.replace("const float *mass, int n", "const float *mass, const float *len, int n").replace(
            "(float)(hi - lo)", "len[v]"
        )
    )
    assert _arg(d, "mass").init != "uniform"


XORSHIFT = """
__device__ unsigned int step(unsigned int x) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

__global__ void draw(unsigned int *seed, int n, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int s = seed[i];
    s = step(s);
    out[i] = (s >> 8) * (1.0f / 16777216.0f);
    seed[i] = s;
}
"""


def test_a_state_only_run_through_xorshift_steps_is_never_0():
    seed = _arg(_draft(XORSHIFT), "seed")
    assert (seed.low, seed.high) == (1, 1 << 32)  # before: from 0, the fixed point
    inline = XORSHIFT.replace("s = step(s);", "s ^= s << 13; s ^= s >> 17; s ^= s << 5;")
    assert _arg(_draft(inline), "seed").low == 1


def test_a_state_stepped_by_a_multiply_may_be_0():
    lcg = XORSHIFT.replace("s = step(s);", "s = s * 1664525u + 1013904223u;")
    assert _arg(_draft(lcg), "seed").low == 0
