"""Layout rules behind held-out batch 7's misses (issue 35 item 3), and the warnings a spec gets where
its layout contradicts the kernel: a row stride whose rows are picked by values read from an array is at
least the row, a window bounded with the extent it slides over is smaller than it, a scalar named as
negated is negative; a stride below its row or a window past its extent is warned about."""

import sys
from pathlib import Path

import pytest

from kt_tui.cli import main
from kt_tui.gpu.compile import find_nvcc
from kt_tui.kernel.draft_flags import layout_warnings
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.source import find_kernels

from .test_draft_shapes import _draft, _points

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.hostile_inputs import many_strides  # noqa: E402

needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc not found")

# rows of `table` picked by values read from `pick`, `table_stride` apart; the output's rows `out_stride` apart
PICK_ROWS = """
__global__ void pick_rows(const float *table, const int *pick, float *out, int cols, int rows,
                          long long table_stride, long long out_stride)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (c >= cols || r >= rows)
        return;
    int t = pick[r];
    out[r * out_stride + c] = 2.0f * table[t * table_stride + c];
}
"""

# a running sum over a window of `win` planes, each `plane` apart, of `depth` planes
WINDOW_SUM = """
__global__ void window_sum(const float *in, float *out, int plane, int depth, int win)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= plane)
        return;
    float acc = 0.0f;
    int d = 0;
    while (d < win && d < depth) {
        acc += in[d * plane + i];
        d++;
    }
    for (; d < depth; d++) {
        acc += in[d * plane + i] - in[(d - win) * plane + i];
        out[(d - win) * plane + i] = acc;
    }
}
"""

POWER = """
__global__ void power(const float *x, float *y, int n, float negative_beta)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = powf(x[i] + 2.0f, negative_beta);
}
"""


def test_a_row_stride_picked_by_read_values_is_at_least_the_row_and_apart_from_the_other():
    d = _draft(PICK_ROWS)
    for at in _points(d.spec):
        assert at["table_stride"] >= at["cols"], at  # rows of the table do not overlap
        assert at["table_stride"] != at["out_stride"], at  # a kernel that swaps the two strides fails
    assert any(k == "args.table_stride" and "rows overlap" in w for k, w in d.guesses)  # marked a guess
    assert layout_warnings(PICK_ROWS, "pick_rows", d.spec) == []


def test_a_window_bounded_with_an_extent_is_smaller_than_it():
    d = _draft(WINDOW_SUM)
    for at in _points(d.spec):
        assert 2 <= at["win"] < at["depth"], at
    win = next(a for a in d.spec.args if a.name == "win").value
    for depth in (3, 40, 5000):  # drafted over the extent: below it at whatever size the user sets
        assert 2 <= evaluate(win, {**d.spec.sizes, "depth": depth}) < depth
    assert layout_warnings(WINDOW_SUM, "window_sum", d.spec) == []


def test_a_scalar_named_negated_is_negative():
    d = _draft(POWER)
    arg = next(a for a in d.spec.args if a.name == "negative_beta")
    assert evaluate(arg.value, d.spec.sizes) < 0


def test_rows_that_overlap_are_warned_about():
    d = _draft(PICK_ROWS)
    arg = next(a for a in d.spec.args if a.name == "table_stride")
    arg.value = 3
    warnings = layout_warnings(PICK_ROWS, "pick_rows", d.spec)
    assert len(warnings) == 1
    assert warnings[0].startswith("args.table_stride: table_stride = 3 < cols = ")
    assert "rows overlap" in warnings[0]


def test_a_stride_of_exactly_the_row_is_not_warned_about():
    d = _draft(PICK_ROWS)
    next(a for a in d.spec.args if a.name == "table_stride").value = "cols"
    assert layout_warnings(PICK_ROWS, "pick_rows", d.spec) == []


def test_a_window_past_its_extent_is_warned_about():
    d = _draft(WINDOW_SUM)
    next(a for a in d.spec.args if a.name == "win").value = 100000
    warnings = layout_warnings(WINDOW_SUM, "window_sum", d.spec)
    assert len(warnings) == 1
    assert warnings[0].startswith("args.win: win = 100000 > depth = ")
    assert "larger than the extent it slides over" in warnings[0]


def test_many_strides_give_few_lines():
    """benchmarks/hostile_inputs.py times it; the suite's per-test limit stops a hang."""
    src = many_strides()
    d = _draft(src)
    for a in d.spec.args:
        if a.name.startswith("s"):
            a.value = 1
    warnings = layout_warnings(src, find_kernels(src)[0].name, d.spec)
    assert 1 <= len(warnings) <= 8


# a row per warp of blocks picked by a row pointer (the loop's end exclusive): each block side*side values
BLOCK_ROWS = """
__global__ void block_rows(const float *vals, const int *ptr, const float *x, float *y, int nrows, int side)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= nrows * side)
        return;
    int br = row / side;
    int r = row % side;
    float s = 0.0f;
    for (int j = ptr[br] + lane; j < ptr[br + 1]; j += 32) {
        for (int c = 0; c < side; c++)
            s += vals[((size_t)j * side + r) * side + c] * x[c];
    }
    if (lane == 0)
        y[row] = s;
}
"""

HALF_SCALES = """
#include <cuda_fp16.h>
__global__ void half_scales(const unsigned short *bits, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned short b = bits[i];
        y[i] = __half2float(__ushort_as_half(b)) * x[i];
    }
}
"""

ANGLES = """
__global__ void angles(const float *cosines, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = acosf(cosines[i]);
}
"""

# one thread per output row of a padded, strided, dilated 1-D convolution
CONV_ROWS = """
__global__ void conv_rows(const float *in, const float *w, float *out, int n_in, int n_out, int k, int stride,
                          int pad, int dil)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= n_out)
        return;
    float acc = 0.0f;
    for (int t = 0; t < k; t++) {
        int i = o * stride - pad + t * dil;
        if (i < 0 || i >= n_in)
            continue;
        acc += w[t] * in[i];
    }
    out[o] = acc;
}
"""


def test_blocks_picked_by_an_exclusive_row_pointer_hold_side_squared_values_and_the_side_is_small():
    d = _draft(BLOCK_ROWS)
    vals = next(a for a in d.spec.args if a.name == "vals")
    ptr = next(a for a in d.spec.args if a.name == "ptr")
    for at in _points(d.spec):
        assert 2 <= at["side"] <= 32, at
        # the pointer's largest value (an exclusive end) counts no more blocks than the array holds, and one
        top = evaluate(ptr.high, at) - 1
        assert evaluate(vals.size, at) >= top * at["side"] ** 2 >= at["side"] ** 2, at


def test_int_values_read_as_half_bits_are_finite():
    d = _draft(HALF_SCALES)
    bits = next(a for a in d.spec.args if a.name == "bits")
    assert bits.low == 0 and bits.high == 0x7C00


def test_values_reaching_an_arc_cosine_lie_in_minus_one_to_one():
    d = _draft(ANGLES)
    arg = next(a for a in d.spec.args if a.name == "cosines")
    assert (arg.low, arg.high) == (-1, 1)


def test_an_output_extent_off_the_padded_window_formula_is_warned_about():
    d = _draft(CONV_ROWS)
    scalars = {a.name: a for a in d.spec.args if not a.is_array}
    d.spec.sizes.update({"n_in": 100, "n_out": 50})
    for name, value in {"n_in": "n_in", "n_out": "n_out", "k": 3, "stride": 2, "pad": 1, "dil": 1}.items():
        scalars[name].value = value
    d.spec.verify_sizes = []
    # (100 + 2 * 1 - 1 * (3 - 1) - 1) // 2 + 1 = 50 outputs: the formula holds
    assert layout_warnings(CONV_ROWS, "conv_rows", d.spec) == []
    d.spec.sizes["n_out"] = 80  # 30 outputs read padding only
    warnings = layout_warnings(CONV_ROWS, "conv_rows", d.spec)
    assert len(warnings) == 1
    assert warnings[0].startswith("args.n_out: n_out = 80, but the kernel's guard `< n_in`")
    assert "= 50: the last outputs read nothing but padding" in warnings[0]
    d.spec.sizes["n_out"] = 40  # the input's last 20 rows never read
    assert "the input's last rows are never read" in layout_warnings(CONV_ROWS, "conv_rows", d.spec)[0]


@needs_nvcc
def test_spec_and_spec_check_print_a_layout_warning(tmp_path, capsys):
    cu = tmp_path / "pick_rows.cu"
    cu.write_text(PICK_ROWS)
    assert main(["spec", str(cu)]) == 0
    assert "layout warning" not in capsys.readouterr().out  # the draft follows its own rules
    toml = tmp_path / "pick_rows.cu.toml"
    text = toml.read_text()
    toml.write_text(text.replace('value = "cols + 64"', "value = 3"))
    assert main(["spec", str(cu), "--check", "--backend", "sim"]) == 0  # a warning, not a refusal
    err = capsys.readouterr().err
    assert "1 layout warning (the spec contradicts the kernel's index math):" in err
    assert "  warning: args.table_stride: table_stride = 3 < cols = " in err


def test_a_scalar_named_negated_that_no_power_takes_keeps_a_positive_value():
    src = POWER.replace("powf(x[i] + 2.0f, negative_beta)", "x[i] > 0.0f ? x[i] : x[i] * negative_beta")
    d = _draft(src)
    arg = next(a for a in d.spec.args if a.name == "negative_beta")
    assert evaluate(arg.value, d.spec.sizes) > 0  # a leaky slope's name: only a power's exponent is negated
