"""Drafts for the kernel shapes of issue 35 item 3, on kernels written for these tests: one block per
item, a warp (32 threads) per item, sizes derived by division, strides and pitches with the layout they
need (marked a guess), and inputs that are not degenerate (sizes of a kind apart, filters above 2,
bytes over their range, row offsets of many lengths)."""

import math

import numpy as np
import pytest

from kt_tui.kernel.draft import draft
from kt_tui.kernel.draft_floats import draft_note
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.inputs import make_args
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import check_spec, dump_spec, parse_spec
from kt_tui.kernel.spec_keys import ROW_LENGTHS


def _draft(src: str):
    kernel = find_kernels(src)[0]
    d = draft(kernel, src)
    check_spec(d.spec, kernel)
    assert parse_spec(dump_spec(d.spec), kernel).to_dict() == d.spec.to_dict()
    return d


def _points(spec) -> list[dict]:
    """The sizes at the default and at each check, with every scalar argument's value besides."""
    tables = [dict(spec.sizes)] + [t["sizes"] for t in spec.extra_sizes()]
    return [{**t, **{a.name: evaluate(a.value, t) for a in spec.args if not a.is_array}} for t in tables]


def _grid(spec, at: dict, axis: int) -> tuple[int, int]:
    """(blocks, threads per block) on an axis, as kernel_tuner launches the baseline."""
    params = spec.baseline_params()
    names = {**params, **at}
    size = evaluate(spec.problem_size[axis], names) if axis < len(spec.problem_size) else 1
    name = f"block_size_{'xyz'[axis]}"
    divisors = getattr(spec, f"grid_div_{'xyz'[axis]}")
    div = params.get(name, 1) if divisors is None else math.prod(evaluate(d, names) for d in divisors)
    return math.ceil(size / div), params.get(name, 1)


def _guessed(d, about: str) -> str:
    return " ".join(what for key, what in d.guesses if key == about)


# -- one block per item ------------------------------------------------------------------------
ROW_NORMS = """
#define TPB 128
__global__ void row_norms(const float *m, float *norms, int nrows, int ncols) {
    __shared__ float part[TPB];
    const float *row = m + blockIdx.x * ncols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < ncols; c += blockDim.x) s += row[c] * row[c];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) norms[blockIdx.x] = sqrtf(part[0]);
}
"""
ROW_LOOP = """
__global__ void row_scale(float *m, const float *f, int nrows, int ncols) {
    for (int r = blockIdx.x; r < nrows; r += gridDim.x)
        for (int c = threadIdx.x; c < ncols; c += blockDim.x)
            m[r * ncols + c] *= f[r];
}
"""


def test_an_index_from_blockidx_alone_is_one_block_per_item_counted_by_the_argument_left_unread():
    d = _draft(ROW_NORMS)  # nothing tests blockIdx.x: nrows, never read, is the grid
    spec = d.spec
    assert spec.problem_size == ["nrows"] and spec.grid_div_x == []
    assert "never reads" in _guessed(d, "sizes.nrows")
    for at in _points(spec):
        blocks, threads = _grid(spec, at, 0)
        assert blocks == at["nrows"] and threads <= 128  # part[] holds TPB = 128
        assert evaluate(next(a.size for a in spec.args if a.name == "m"), at) == at["nrows"] * at["ncols"]


def test_a_loop_from_blockidx_by_griddim_takes_one_block_per_item():
    spec = _draft(ROW_LOOP).spec
    assert spec.problem_size == ["nrows"] and spec.grid_div_x == []
    for at in _points(spec):
        assert _grid(spec, at, 0)[0] == at["nrows"]


# -- a warp per item ---------------------------------------------------------------------------
WARP_ROWS = {
    "divide": "int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; int lane = threadIdx.x % 32;",
    "shift": "int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; int lane = threadIdx.x & 31;",
    "warpSize": "int w = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize; int lane = threadIdx.x % warpSize;",
    "per block": (
        "int w = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize; int lane = threadIdx.x % warpSize;"
    ),
}


@pytest.mark.parametrize("index", WARP_ROWS.values(), ids=list(WARP_ROWS))
def test_a_warp_index_takes_32_threads_per_item(index):
    src = f"""
__global__ void row_max(const float *m, float *best, int nrows, int ncols) {{
    {index}
    if (w < nrows) {{
        float v = -1e30f;
        for (int c = lane; c < ncols; c += 32) v = fmaxf(v, m[w * ncols + c]);
        for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
        if (lane == 0) best[w] = v;
    }}
}}
"""
    spec = _draft(src).spec
    assert spec.problem_size == ["32*nrows"]
    assert all(b % 32 == 0 for b in spec.tune_params["block_size_x"])  # whole warps in a block
    for at in _points(spec):
        blocks, threads = _grid(spec, at, 0)
        assert 32 * at["nrows"] <= blocks * threads < 32 * at["nrows"] + threads
        assert evaluate(next(a.size for a in spec.args if a.name == "m"), at) == at["nrows"] * at["ncols"]


def test_a_grid_stride_loop_over_warps_takes_32_threads_per_item():
    src = """
__global__ void row_sums(const float *m, float *sums, int nrows, int ncols) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = t / 32; r < nrows; r += (blockDim.x / 32) * gridDim.x) {
        float s = 0.0f;
        for (int c = t % 32; c < ncols; c += 32) s += m[r * ncols + c];
        for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffff, s, o);
        if (t % 32 == 0) sums[r] = s;
    }
}
"""
    assert _draft(src).spec.problem_size == ["32*nrows"]


# -- sizes derived by division -----------------------------------------------------------------
SHRINK = """
__global__ void shrink(const float *img, float *small, int w, int h, int f) {
    int sw = w / f;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < sw && y < h / f) {
        float m = 0.0f;
        for (int j = 0; j < f; j++)
            for (int i = 0; i < f; i++) m = fmaxf(m, img[(y * f + j) * w + x * f + i]);
        small[y * sw + x] = m;
    }
}
"""
DECIMATE = """
__global__ void keep_every(const float *in, float *out, int n, int lead, int step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (n - lead) / step) out[i] = in[lead + i * step];
}
"""


def test_a_size_derived_by_division_is_exact_large_and_its_divisor_above_one():
    d = _draft(SHRINK)
    spec = d.spec
    values = {a.name: a.value for a in spec.args if not a.is_array}
    assert values["w"] == "sw*f" and values["h"] == "h_per_f*f"  # w, h whole multiples of f
    assert "divided by it" in _guessed(d, "sizes.f")
    for at in _points(spec):
        assert at["f"] > 1 and at["w"] // at["f"] >= 16 and at["h"] // at["f"] >= 16
        for axis, need in enumerate((at["w"] // at["f"], at["h"] // at["f"])):  # no thread idle but a block's
            blocks, threads = _grid(spec, at, axis)
            assert need <= blocks * threads < need + threads
        assert evaluate(next(a.size for a in spec.args if a.name == "img"), at) >= at["w"] * at["h"]
    assert spec.sizes["sw"] != spec.sizes["h_per_f"]  # not square: axes swapped would fail


def test_a_divided_size_with_a_part_taken_away_keeps_that_part():
    spec = _draft(DECIMATE).spec
    for at in _points(spec):
        assert at["step"] > 1 and (at["n"] - at["lead"]) // at["step"] >= 16
        need = (at["n"] - at["lead"]) // at["step"]
        blocks, threads = _grid(spec, at, 0)
        assert need <= blocks * threads < need + threads
        assert (
            evaluate(next(a.size for a in spec.args if a.name == "in"), at) >= at["lead"] + (need - 1) * at["step"] + 1
        )


# -- strides and pitches -----------------------------------------------------------------------
BATCHED = """
__global__ void batched_square(const float *a, float *c, int m, int bstride, int nbatch) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;
    if (i < m && j < m && b < nbatch) {
        float s = 0.0f;
        for (int k = 0; k < m; k++) s += a[b * bstride + i * m + k] * a[b * bstride + k * m + j];
        c[b * bstride + i * m + j] = s;
    }
}
"""
PADDED = """
__global__ void blur_padded(const float *in, float *out, int nx, int ny, int pitch) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < nx && y < ny) {
        int at = (y + 1) * pitch + x + 1;
        out[at] = 0.25f * (in[at - 1] + in[at + 1] + in[at - pitch] + in[at + pitch]);
    }
}
"""
BYTE_PITCH = """
__global__ void gain_rows(float *img, size_t pitch_bytes, int cols, int rows, float g) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < cols && y < rows) {
        float *line = (float *)((char *)img + y * pitch_bytes);
        line[x] *= g;
    }
}
"""
ELEMENT_STRIDE = """
__global__ void gather_every(float *dst, const float *src, int n, int every) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i * every];
}
"""


def _layout_guess(d, name: str) -> str:
    return _guessed(d, f"args.{name}")


def test_a_batch_stride_spans_a_whole_matrix_and_is_marked_a_guess():
    d = _draft(BATCHED)
    assert "items do not overlap" in _layout_guess(d, "bstride") and "# guess: bstride = " in d.text()
    for at in _points(d.spec):
        assert at["bstride"] >= at["m"] * at["m"]  # the matrices do not overlap: no race on c
        assert evaluate(next(a.size for a in d.spec.args if a.name == "c"), at) >= at["nbatch"] * at["bstride"] - (
            at["bstride"] - at["m"] * at["m"]
        )


def test_a_pitch_holds_a_row_and_its_halo():
    d = _draft(PADDED)
    assert "items do not overlap" in _layout_guess(d, "pitch")
    for at in _points(d.spec):
        assert at["pitch"] >= at["nx"] + 2


def test_a_byte_pitch_holds_a_row_of_floats():
    d = _draft(BYTE_PITCH)
    assert "items do not overlap" in _layout_guess(d, "pitch_bytes")
    for at in _points(d.spec):
        assert at["pitch_bytes"] >= 4 * at["cols"]
        assert 4 * evaluate(next(a.size for a in d.spec.args if a.name == "img"), at) >= (
            (at["rows"] - 1) * at["pitch_bytes"] + 4 * at["cols"]
        )


def test_a_stride_within_an_item_is_a_plain_small_size():
    d = _draft(ELEMENT_STRIDE)
    assert d.spec.sizes["every"] > 1 and not _layout_guess(d, "every")


# -- inputs that are not degenerate ------------------------------------------------------------
CONV_VALID = """
__global__ void conv_valid(const float *img, const float *k, float *out, int w, int h, int kw, int kh) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w - kw + 1 && y < h - kh + 1) {
        float s = 0.0f;
        for (int j = 0; j < kh; j++)
            for (int i = 0; i < kw; i++) s += img[(y + j) * w + x + i] * k[j * kw + i];
        out[y * (w - kw + 1) + x] = s;
    }
}
"""
BYTES = """
__global__ void byte_hist(const unsigned char *in, const char *signed_in, unsigned int *counts, int n) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[in[i] ^ (unsigned char)signed_in[i]], 1u);
    __syncthreads();
    atomicAdd(&counts[threadIdx.x], local[threadIdx.x]);
}
"""
AXPBY = """
__global__ void axpby(float *y, const float *x, float alpha, float beta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + beta * y[i];
}
"""
CSR_READ = """
__global__ void csr_rowsum(const int *starts, const float *vals, float *sums, int nrows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < nrows) {
        float s = 0.0f;
        for (int j = starts[r]; j < starts[r + 1]; j++) s += vals[j];
        sums[r] = s;
    }
}
"""
CSR_WRITE = """
__global__ void csr_scale(const int *starts, float *vals, const float *f, int nrows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < nrows)
        for (int j = starts[r]; j < starts[r + 1]; j++) vals[j] *= f[r];
}
"""


def test_complex_types_of_cuda_headers_are_pairs_of_floats_or_doubles():
    src = """
#include <cuComplex.h>
__global__ void conj_mul(const cuFloatComplex *a, const cuDoubleComplex *b, cufftComplex *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = cuCmulf(a[i], cuConjf(make_cuFloatComplex((float)b[i].x, (float)b[i].y)));
}
"""
    d = _draft(src)
    assert {a.name: a.type for a in d.spec.args if a.is_array} == {"a": "float2", "b": "double2", "c": "float2"}
    assert not any("not a number type" in what for _key, what in d.guesses)


def test_sizes_of_a_kind_are_apart_and_a_filter_is_larger_than_two():
    spec = _draft(CONV_VALID).spec
    s = spec.sizes
    assert s["w"] != s["h"] and s["kw"] != s["kh"] and min(s["kw"], s["kh"]) > 2


def test_bytes_nothing_bounds_are_drawn_over_their_type_with_the_high_bit_set():
    d = _draft(BYTES)
    arrays = dict(
        zip([a.name for a in d.spec.args], make_args(d.spec, {k: min(v, 100_000) for k, v in d.spec.sizes.items()}))
    )
    assert arrays["in"].dtype == np.uint8 and arrays["in"].max() >= 250 and arrays["in"].min() == 0
    assert (
        arrays["signed_in"].dtype == np.int8 and arrays["signed_in"].min() == -128 and arrays["signed_in"].max() >= 120
    )
    assert "high bits set" in _guessed(d, "args.in")


def test_float_scalars_given_a_made_up_value_get_different_ones():
    spec = _draft(AXPBY).spec
    values = {a.name: a.value for a in spec.args if not a.is_array}
    assert values["alpha"] != values["beta"] and {values["alpha"], values["beta"]}.isdisjoint({0, 1})
    assert f"alpha = {values['alpha']}" in draft_note(spec) and f"beta = {values['beta']}" in draft_note(spec)


@pytest.mark.parametrize("src", [CSR_READ, CSR_WRITE])
def test_row_offsets_give_sorted_rows_of_every_length_inside_the_elements(src):
    """Offsets one longer than the rows: sorted (rows written never overlap, which would race), rows
    of 0, 1, 2, 7, 31, 33, 64 and 100 elements (half a warp reduction cannot pass), all inside vals."""
    d = _draft(src)
    starts = make_args(d.spec)[0]
    lengths = np.diff(starts)
    assert (lengths >= 0).all() and set(ROW_LENGTHS) <= set(lengths.tolist())
    nvals = evaluate(next(a.size for a in d.spec.args if a.name == "vals"), d.spec.sizes)
    assert starts.min() == 0 and starts.max() <= nvals  # every row inside vals
    assert "row offsets" in _guessed(d, "args.starts")
