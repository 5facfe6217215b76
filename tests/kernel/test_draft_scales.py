"""Drafts for held-out batch 8's scalar shapes (issue 35 item 3), by how the kernel uses a scalar: a float
that scales a coordinate truncated to an index maps the coordinates onto several indices, a float in an
exponential's argument keeps it finite and one that weights a square there is smaller, a leading
dimension beside a column below the same size is at least that size; a spec that maps every coordinate
to one index, or whose leading dimension is below its row, is warned about."""

import pytest

from kt_tui.cli import main
from kt_tui.gpu.compile import find_nvcc
from kt_tui.kernel.draft_flags import layout_warnings
from kt_tui.kernel.expr import evaluate

from .test_draft_shapes import _draft, _points

needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found")

# nearest-neighbour resampling of rows: each output column reads the source column floor(x * sx)
RESAMPLE = """
__global__ void resample_rows(const float *src, float *dst, int rows, int src_w, int dst_w, float sx)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst_w || y >= rows)
        return;
    const int sx_i = min((int)floorf(x * sx), src_w - 1);
    dst[y * dst_w + x] = src[y * src_w + sx_i];
}
"""

# a lookup of a fixed 256-entry table at a scaled coordinate: element i reads entry (int)(i * step)
DECIMATE = """
__global__ void decimate(const float *table, float *out, int n, float step)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = table[min((int)(i * step), 255)];
}
"""

# a 1-D range filter: neighbours weighted by a Gaussian of their distance and of their difference
RANGE_FILTER = """
__global__ void range_filter(const float *in, float *out, int n, int r, float w_dist, float w_diff, float gain)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sum = 0.0f, wsum = 0.0f;
    for (int k = -r; k <= r; k++) {
        const int j = min(max(i + k, 0), n - 1);
        const float d = in[j] - in[i];
        const float w = expf(-(float)(k * k) * w_dist - d * d * w_diff);
        sum += w * in[j];
        wsum += w;
    }
    out[i] = gain * sum / wsum;
}
"""

# a softmax-like exponential of a scaled difference of values drawn in [-100, 100): no square, no Gaussian
SCALED_EXP = """
__global__ void scaled_exp(const float *in, float *out, int n, float scale)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = expf((in[i] - in[0]) * scale);
}
"""

# a batch of unit lower-triangular n x n matrices, column-major with leading dimension ld, `stride` apart,
# one block each: y = L x, each thread a row
TRIANGLE_MV = """
__global__ void unit_lower_mv(int n, const float *L, int ld, long long stride, const float *x, float *y, int batch)
{
    const int m = blockIdx.x;
    if (m >= batch)
        return;
    const float *a = L + m * stride;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        float acc = x[m * n + i];
        for (int j = 0; j < i; j++)
            acc += a[i + (size_t)j * ld] * x[m * n + j];
        y[m * n + i] = acc;
    }
}
"""


def _value(d, name: str, at: dict) -> float:
    return evaluate(next(a for a in d.spec.args if a.name == name).value, at)


def test_a_scale_truncated_through_floor_and_clamped_is_the_resize():
    d = _draft(RESAMPLE)
    assert next(a for a in d.spec.args if a.name == "sx").value == "src_w / dst_w"
    for at in _points(d.spec):
        assert at["sx"] * (at["dst_w"] - 1) >= 1, at  # the coordinates reach more than one source column
    assert layout_warnings(RESAMPLE, "resample_rows", d.spec) == []


def test_a_scale_truncated_without_a_clamp_maps_two_coordinates_to_an_index_and_is_a_guess():
    d = _draft(DECIMATE)
    assert next(a for a in d.spec.args if a.name == "step").value == 0.5
    assert any(k == "args.step" and "truncated to an index" in w for k, w in d.guesses)
    for at in _points(d.spec):
        assert at["step"] * (at["n"] - 1) >= 1
    assert layout_warnings(DECIMATE, "decimate", d.spec) == []


def test_a_scale_that_truncates_every_coordinate_to_one_index_is_warned_about():
    for src, kernel, scale in ((RESAMPLE, "resample_rows", "sx"), (DECIMATE, "decimate", "step")):
        d = _draft(src)
        next(a for a in d.spec.args if a.name == scale).value = 1e-7
        warnings = layout_warnings(src, kernel, d.spec)
        assert len(warnings) == 1, warnings
        assert warnings[0].startswith(f"args.{scale}: {scale} * (")
        assert "every coordinate gives index 0" in warnings[0]


def test_weights_of_squares_in_an_exponential_are_small_apart_and_guesses():
    d = _draft(RANGE_FILTER)
    at = d.spec.sizes
    dist, diff = _value(d, "w_dist", at), _value(d, "w_diff", at)
    assert 0 < dist <= 0.05 and 0 < diff <= 0.05 and dist != diff
    assert _value(d, "gain", at) not in (0, 1) and _value(d, "gain", at) > 0.05  # a plain factor keeps its value
    for name in ("w_dist", "w_diff"):
        assert any(k == f"args.{name}" and "Gaussian" in w for k, w in d.guesses)


def test_a_factor_in_an_exponential_keeps_it_finite_over_the_data():
    d = _draft(SCALED_EXP)
    scale = _value(d, "scale", d.spec.sizes)
    assert 0 < scale < 1 and scale * 200 < 88  # float exp overflows past 88; differences reach 200
    assert scale > 0.05  # no Gaussian weight: it multiplies no square
    assert any(k == "args.scale" and "exponential" in w for k, w in d.guesses)


def test_a_leading_dimension_beside_a_column_below_the_same_size_is_at_least_it():
    d = _draft(TRIANGLE_MV)
    for at in _points(d.spec):
        assert at["ld"] > at["n"], at  # padded past the row: a kernel that steps by n fails
        assert at["stride"] >= at["ld"] * at["n"], at  # whole matrices apart: they do not overlap
    assert any(k == "args.ld" for k, _ in d.guesses)
    assert layout_warnings(TRIANGLE_MV, "unit_lower_mv", d.spec) == []


def test_a_leading_dimension_below_its_row_is_warned_about():
    d = _draft(TRIANGLE_MV)
    next(a for a in d.spec.args if a.name == "ld").value = 3
    warnings = layout_warnings(TRIANGLE_MV, "unit_lower_mv", d.spec)
    assert warnings and warnings[0].startswith("args.ld: ld = 3 < n = ")
    assert "leading dimension" in warnings[0] and "rows overlap" in warnings[0]
    # a scalar that numbers a row multiplies a size (`row * cols`), not a row index: no leading dimension
    src = """
__global__ void one_row(const float *in, float *out, int cols, int row)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x < cols)
        out[x] = in[row * cols + x];
}
"""
    d = _draft(src)
    next(a for a in d.spec.args if a.name == "row").value = 0
    assert layout_warnings(src, "one_row", d.spec) == []


@needs_nvcc
def test_spec_check_prints_the_degenerate_scale_warning(tmp_path, capsys):
    cu = tmp_path / "decimate.cu"
    cu.write_text(DECIMATE)
    assert main(["spec", str(cu)]) == 0
    assert "layout warning" not in capsys.readouterr().out
    toml = tmp_path / "decimate.cu.toml"
    toml.write_text(toml.read_text().replace("value = 0.5", "value = 1e-9"))
    assert main(["spec", str(cu), "--check", "--backend", "sim"]) == 0  # a warning, not a refusal
    err = capsys.readouterr().err
    assert "1 layout warning (the spec contradicts the kernel's index math):" in err
    assert "  warning: args.step: step * (" in err


# each thread writes through a pointer chosen between two outputs by a conditional
SPLIT = """
__global__ void split_halves(const float *in, float *low, float *high, int n, int half)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float *out = i < half ? low : high;
    out[i % half] = in[i];
}
"""


def test_a_pointer_chosen_between_two_outputs_writes_both_and_sizes_both():
    d = _draft(SPLIT)
    outs = {a.name: a for a in d.spec.args if a.is_array and a.output}
    assert set(outs) == {"low", "high"}
    for at in _points(d.spec):
        for a in outs.values():
            assert evaluate(a.size, at) >= at["half"], (a.name, at)  # what `i % half` reaches
