"""Drafts for the shapes held-out batch 3 of issue 35 got wrong, on small kernels written for these
tests (never the corpus's): a warp per item on 2-D blocks, a loop over a neighbourhood bounded by a
runtime window, a count that sizes a shared table (and the dynamic shared memory it needs), a shared
array whose constant extent caps the block, a leading dimension or stride that must hold the row it
steps over, and butterflies whose indices reach past the thread count."""

import math

import pytest

from kt_tui.kernel.draft import draft
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.source import find_kernels

from .extent_kernels import _all_sizes as _points
from .extent_kernels import _draft


def _length(spec, name: str, at: dict) -> int:
    """Elements of the argument's own type (a float2 is one)."""
    return int(evaluate(next(a for a in spec.args if a.name == name).size, at))


def _blocks(spec, at: dict, axis: int, params: dict) -> int:
    size = evaluate(spec.problem_size[axis], {**params, **at}) if axis < len(spec.problem_size) else 1
    divisors = getattr(spec, f"grid_div_{'xyz'[axis]}")
    name = f"block_size_{'xyz'[axis]}"
    div = params.get(name, 1) if divisors is None else math.prod(evaluate(d, {**params, **at}) for d in divisors)
    return math.ceil(size / div)


def _configs(spec) -> list[dict]:
    """Every block-size configuration the draft tunes (the others at their defaults)."""
    names = sorted(spec.tune_params)
    out = [spec.baseline_params()]
    for name in names:
        out += [{**spec.baseline_params(), name: v} for v in spec.tune_params[name]]
    return out


# -- 1. one warp per item on 2-D blocks --------------------------------------------------------
WARP_2D = {
    "literal step": ("int r = blockIdx.x * blockDim.y + threadIdx.y;", "int c = threadIdx.x;", "c += 32"),
    "warpSize step": ("int r = blockIdx.x * blockDim.y + threadIdx.y;", "int c = threadIdx.x;", "c += warpSize"),
    "lane local": ("int r = threadIdx.y + blockDim.y * blockIdx.x;", "int lane = threadIdx.x, c = lane;", "c += 32"),
}


@pytest.mark.parametrize("row, first, step", WARP_2D.values(), ids=list(WARP_2D))
def test_a_warp_per_row_on_2d_blocks_fixes_32_lanes_and_spreads_rows_over_block_y(row, first, step):
    src = f"""
__global__ void row_norm(float *out, const float *m, int nrows, int ncols) {{
    {row}
    if (r >= nrows) return;
    float s = 0.0f;
    for ({first} c < ncols; {step}) s += m[r * ncols + c] * m[r * ncols + c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
    if (threadIdx.x == 0) out[r] = sqrtf(s);
}}
"""
    spec = _draft(src)
    assert spec.problem_size == ["nrows"] and spec.grid_div_x == ["block_size_y"]  # one axis of work
    assert spec.tune_params["block_size_x"] == [32] and len(spec.tune_params["block_size_y"]) > 1
    for at in _points(spec):
        for params in _configs(spec):
            rows_per_block = params["block_size_y"]
            assert _blocks(spec, at, 0, params) == math.ceil(at["nrows"] / rows_per_block)  # every row, no more
        assert _length(spec, "m", at) >= at["nrows"] * at["ncols"] and _length(spec, "out", at) >= at["nrows"]
    assert spec.sizes["ncols"] > 32  # every lane works


def test_a_warp_per_row_with_whole_warp_shuffles_and_no_lane_loop_still_takes_32_lanes():
    src = """
__global__ void warp_sums(float *out, const float *v, int nrows) {
    int r = blockIdx.x * blockDim.y + threadIdx.y;
    if (r < nrows) {
        float s = v[r * 32 + threadIdx.x];
        for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffff, s, o);
        if (threadIdx.x == 0) out[r] = s;
    }
}
"""
    spec = _draft(src)
    assert spec.problem_size == ["nrows"] and spec.grid_div_x == ["block_size_y"]
    assert spec.tune_params["block_size_x"] == [32]


def test_rows_per_block_fixed_by_a_define_are_the_block_size_on_the_rows_axis():
    src = """
#define ROWS 4
__global__ void row_max(float *out, const float *m, int nrows, int ncols) {
    int r = blockIdx.x * ROWS + threadIdx.y;
    if (r >= nrows) return;
    float v = -1e30f;
    for (int c = threadIdx.x; c < ncols; c += 32) v = fmaxf(v, m[r * ncols + c]);
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    if (threadIdx.x == 0) out[r] = v;
}
"""
    spec = _draft(src)
    assert spec.problem_size == ["nrows"] and spec.grid_div_x == ["block_size_y"]
    assert (spec.tune_params["block_size_x"], spec.tune_params["block_size_y"]) == ([32], [4])


def test_lanes_without_a_grid_axis_take_one_block_there():
    src = """
__global__ void rows_y(float *out, const float *m, int nrows, int ncols) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < nrows) {
        float s = 0.0f;
        for (int c = threadIdx.x; c < ncols; c += 32) s += m[r * ncols + c];
        if (threadIdx.x == 0) out[r] = s;
    }
}
"""
    spec = _draft(src)
    assert spec.problem_size == ["1", "nrows"] and spec.tune_params["block_size_x"] == [32]
    assert spec.verify_sizes != []  # nothing guessed: checks at other sizes stay


# -- 2. a loop over a neighbourhood, bounded by a runtime window ---------------------------------
FILTER_CLAMPED = """
__global__ void filt(float *dst, const float *src, const float *k, int w, int h, int kw, int kh) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float s = 0.0f;
    for (int j = 0; j < kh; j++) {
        int sy = min(max(y + j - kh / 2, 0), h - 1);
        for (int i = 0; i < kw; i++) {
            int sx = min(max(x - kw / 2 + i, 0), w - 1);
            s += k[j * kw + i] * src[sy * w + sx];
        }
    }
    dst[y * w + x] = s;
}
"""
RADII = """
__global__ void box(float *out, const float *in, int w, int h, int rx, int ry) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float s = 0.0f;
        for (int dy = -ry; dy <= ry; dy++)
            for (int dx = -rx; dx <= rx; dx++) {
                int xx = x + dx, yy = y + dy;
                if (xx >= 0 && xx < w && yy >= 0 && yy < h) s += in[yy * w + xx];
            }
        out[y * w + x] = s;
    }
}
"""
FIR = """
__global__ void fir(float *y, const float *x, const float *taps, int n, int ntaps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < ntaps; k++) if (i >= k) acc += taps[k] * x[i - k];
        y[i] = acc;
    }
}
"""


@pytest.mark.parametrize(
    "src, windows", [(FILTER_CLAMPED, ("kw", "kh")), (RADII, ("rx", "ry")), (FIR, ("ntaps",))], ids=str
)
def test_a_runtime_window_that_bounds_a_neighbourhood_loop_is_small_and_apart_per_axis(src, windows):
    spec = _draft(src)
    for at in _points(spec):
        assert all(3 <= at[w] <= 15 for w in windows), {w: at[w] for w in windows}
        assert len({at[w] for w in windows}) == len(windows)  # a kernel that swaps two of them fails
    assert max(v for k, v in spec.sizes.items() if k not in windows) >= 256  # the data stays large


def test_a_loop_that_steps_by_tiles_is_no_window():
    src = """
__global__ void row_scan(const float *in, float *out, int rows, int cols) {
    int row = blockIdx.x;
    float carry = 0.0f;
    for (int base = 0; base < cols; base += blockDim.x) {
        int c = base + threadIdx.x;
        if (c < cols) { carry += in[row * cols + c]; out[row * cols + c] = carry; }
    }
}
"""
    assert _draft(src).sizes["cols"] >= 64


def test_a_loop_over_a_row_stays_the_length_of_the_row():
    src = """
__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float s = 0.0f;
        for (int k = 0; k < K; k++) s += A[row * K + k] * B[k * N + col];
        C[row * N + col] = s;
    }
}
"""
    assert _draft(src).sizes["K"] >= 64


# -- 3. a count that sizes a shared table, and the dynamic shared memory it needs ----------------
SHARED_BINS = """
__global__ void hist(unsigned int *out, const unsigned char *v, int n, int nbins) {
    extern __shared__ unsigned int bins[];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[v[i] % nbins], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&out[b], bins[b]);
}
"""
SHARED_TABLE = """
__global__ void horner(float *y, const float *x, const double *coef, int n, int ncoef) {
    extern __shared__ double c[];
    for (int k = threadIdx.x; k < ncoef; k += blockDim.x) c[k] = coef[k];
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double acc = 0.0;
        for (int k = ncoef - 1; k >= 0; k--) acc = acc * x[i] + c[k];
        y[i] = (float)acc;
    }
}
"""


@pytest.mark.parametrize(
    "src, count, bytes_each", [(SHARED_BINS, "nbins", 4), (SHARED_TABLE, "ncoef", 8)], ids=["bins", "table"]
)
def test_a_count_that_sizes_dynamic_shared_memory_is_small_and_smem_size_holds_it(src, count, bytes_each):
    spec = _draft(src)
    assert spec.smem_size is not None
    for at in _points(spec):
        assert 64 <= at[count] <= 256
        for params in _configs(spec):
            assert evaluate(spec.smem_size, {**params, **at}) >= bytes_each * at[count]
    assert spec.sizes["n"] >= 100_000


@pytest.mark.parametrize(
    "declared",
    ["    extern __shared__ float red[];", "    extern __shared__ char raw[];\n    float *red = (float *)raw;"],
)
def test_dynamic_shared_memory_indexed_by_the_thread_number_takes_a_block_of_it(declared):
    src = f"""
__global__ void block_max(float *out, const float *in, int n) {{
{declared}
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    red[threadIdx.x] = i < n ? in[i] : -1e30f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {{
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }}
    if (threadIdx.x == 0) out[blockIdx.x] = red[0];
}}
"""
    spec = _draft(src)
    for params in _configs(spec):
        assert evaluate(spec.smem_size, {**params, **spec.sizes}) >= 4 * params["block_size_x"]


def test_dynamic_shared_memory_of_a_template_type_is_sized_as_the_type_is_drafted():
    src = """
template <typename T>
__global__ void block_sum(T *out, const T *in, int n) {
    extern __shared__ T part[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = part[0] + part[blockDim.x - 1];
}
"""
    spec = _draft(src)
    assert spec.kernel == "block_sum<float>"
    for params in _configs(spec):
        assert evaluate(spec.smem_size, {**params, **spec.sizes}) >= 4 * params["block_size_x"]


def test_file_scope_dynamic_shared_memory_is_sized_too():
    src = """
extern __shared__ int counts[];
__global__ void tally(int *out, const int *keys, int n, int nkeys) {
    for (int b = threadIdx.x; b < nkeys; b += blockDim.x) counts[b] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[keys[i] % nkeys], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < nkeys; b += blockDim.x) atomicAdd(&out[b], counts[b]);
}
"""
    spec = _draft(src)
    for at in _points(spec):
        assert 64 <= at["nkeys"] <= 256 and evaluate(spec.smem_size, at) >= 4 * at["nkeys"]


def test_float_values_converted_to_an_index_are_drawn_as_fractions():
    src = """
__global__ void bin(unsigned int *hist, const float *v, int n, int nbins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = min((int)(v[i] * nbins), nbins - 1);
        atomicAdd(&hist[b], 1u);
    }
}
"""
    v = next(a for a in _draft(src).args if a.name == "v")
    assert (v.low, v.high) == (0, 1)


# -- 4. a shared array whose extent is a constant caps the block ---------------------------------
TWO_PER_THREAD = """
#define BLOCK 128
__global__ void pairs(float *out, const float *in, int n) {
    __shared__ float t[2 * BLOCK];
    int base = 2 * blockIdx.x * blockDim.x;
    t[2 * threadIdx.x] = base + 2 * threadIdx.x < n ? in[base + 2 * threadIdx.x] : 0.0f;
    t[2 * threadIdx.x + 1] = base + 2 * threadIdx.x + 1 < n ? in[base + 2 * threadIdx.x + 1] : 0.0f;
    __syncthreads();
    if (base + 2 * threadIdx.x + 1 < n)
        out[base + 2 * threadIdx.x + 1] = t[2 * threadIdx.x] + t[2 * threadIdx.x + 1];
}
"""
GUARDED_HALO = """
#define R 2
template <int BLOCK>
__global__ void avg(float *out, const float *in, int n) {
    __shared__ float tile[BLOCK + 2 * R];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x + R] = in[min(i, n - 1)];
    if (threadIdx.x < R) {
        tile[threadIdx.x] = in[max(i - R, 0)];
        tile[threadIdx.x + BLOCK + R] = in[min(i + BLOCK, n - 1)];
    }
    __syncthreads();
    if (i < n) out[i] = tile[threadIdx.x] + tile[threadIdx.x + R] + tile[threadIdx.x + 2 * R];
}
"""
CONSTEXPR_HALO = """
constexpr int TILE = 64;
constexpr int R = 2;
__global__ void smooth(float *out, const float *in, int n) {
    __shared__ float buf[TILE + 2 * R];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + R;
    buf[l] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = buf[l];
}
"""
TEMPLATE_TILE = """
template <int TILE>
__global__ void shift(float *out, const float *in, int n) {
    __shared__ float buf[TILE + 1];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x + 1] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = buf[threadIdx.x + 1];
}
"""


@pytest.mark.parametrize(
    "src, most",
    [(TWO_PER_THREAD, 128), (CONSTEXPR_HALO, 64), (TEMPLATE_TILE, 128)],
    ids=["2 * BLOCK", "constexpr", "template"],
)
def test_a_shared_array_of_constant_extent_caps_the_block_size(src, most):
    spec = _draft(src)
    assert max(spec.tune_params["block_size_x"]) <= most and spec.baseline_params()["block_size_x"] <= most
    assert len(spec.tune_params["block_size_x"]) > 1  # the kernel reads blockDim.x: below the cap is fine


def test_a_halo_only_the_first_threads_load_caps_nothing():
    spec = _draft(GUARDED_HALO)  # tile[threadIdx.x + BLOCK + R] under threadIdx.x < R: not a cap of R
    assert max(spec.tune_params["block_size_x"]) == 128


def test_a_kernel_that_steps_by_the_extent_of_its_shared_array_gets_exactly_that_many_threads():
    src = """
#define THREADS 128
__global__ void row_sums(float *out, const float *m, int nrows, int ncols) {
    __shared__ float part[THREADS];
    int row = blockIdx.x;
    float s = 0.0f;
    for (int c = threadIdx.x; c < ncols; c += THREADS) s += m[row * ncols + c];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int h = THREADS / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = part[0];
}
"""
    spec = _draft(src)
    assert spec.tune_params["block_size_x"] == [128] and spec.problem_size == ["nrows"]


# -- 5. a leading dimension or stride holds the row it steps over --------------------------------
LDA_BATCHED = """
__global__ void gemv_b(const float *A, int lda, long long strideA, const float *x, float *y, int m, int n, int nb) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && b < nb) {
        float acc = 0.0f;
        for (int j = 0; j < n; j++) acc += A[b * strideA + row * lda + j] * x[b * n + j];
        y[b * m + row] = acc;
    }
}
"""
STRIDED_VOLUME = """
__global__ void vol_copy(float *out, const float *in, int nx, int ny, int nz, int row_stride, int slice_stride) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        int at = z * slice_stride + y * row_stride + x;
        out[at] = 2.0f * in[at];
    }
}
"""
PITCHED_NEIGHBOURS = """
__global__ void dz(float *out, const float *v, int nx, int ny, int nz, int ld) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    int slice = ld * ny;
    int at = z * slice + y * ld + x;
    out[at] = v[at + (min(z + 1, nz - 1) - z) * slice] - v[at - (z - max(z - 1, 0)) * slice];
}
"""


def test_a_leading_dimension_inside_a_batch_stride_holds_its_row_and_the_batch_stride_its_matrix():
    d = draft(find_kernels(LDA_BATCHED)[0], LDA_BATCHED)
    for at in _points(d.spec):
        assert at["lda"] > at["n"]  # rows do not overlap, and a kernel that uses n for lda fails
        assert at["strideA"] >= (at["m"] - 1) * at["lda"] + at["n"]
        assert _length(d.spec, "A", at) >= (at["nb"] - 1) * at["strideA"] + (at["m"] - 1) * at["lda"] + at["n"]
    assert "lda = " in d.text() and "strideA = " in d.text()  # each marked a guess


def test_row_and_slice_strides_of_a_volume_hold_a_row_and_a_slice():
    spec = _draft(STRIDED_VOLUME)
    for at in _points(spec):
        assert at["row_stride"] > at["nx"]
        assert at["slice_stride"] >= (at["ny"] - 1) * at["row_stride"] + at["nx"]


def test_a_pitch_whose_slice_is_pitch_times_rows_holds_a_row():
    spec = _draft(PITCHED_NEIGHBOURS)
    for at in _points(spec):
        assert at["ld"] > at["nx"]
        assert _length(spec, "v", at) >= (at["nz"] * at["ny"] - 1) * at["ld"] + at["nx"]


# -- 6. butterflies reach past the thread count ---------------------------------------------------
BUTTERFLIES = {
    "(t / s) * 2 * s + k": ("double2 *d", "int k = t % s; int i0 = (t / s) * 2 * s + k;"),
    "t + (t / s) * s": ("float2 *d", "int i0 = t + (t / s) * s;"),
    "2 * s * (t / s) + (t & (s - 1))": ("cuFloatComplex *d", "int i0 = 2 * s * (t / s) + (t & (s - 1));"),
}


@pytest.mark.parametrize("param, first", BUTTERFLIES.values(), ids=list(BUTTERFLIES))
def test_butterfly_data_is_as_long_as_the_largest_index_the_kernel_reaches(param, first):
    src = f"""
#include <cuComplex.h>
__global__ void stage({param}, int n, int s) {{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n / 2) return;
    {first}
    int i1 = i0 + s;
    d[i1] = d[i0];
}}
"""
    spec = _draft(src)
    for at in _points(spec):
        n, s = at["n"], at["s"]
        assert s >= 2
        reach = max(
            (t // s) * 2 * s + t % s + s if "& (s - 1)" not in first else 2 * s * (t // s) + (t & (s - 1)) + s
            for t in range(max(0, n // 2 - 4 * s), n // 2)
        )
        assert _length(spec, "d", at) > reach, (at, reach)
        assert _length(spec, "d", at) >= n
