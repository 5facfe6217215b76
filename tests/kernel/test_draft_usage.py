"""Drafts that read what the code does with a value beyond its index math: a clamp's lower side (`max(c,
0)`), a count of rows that multiplies the row number (no stride of its own), a value rescaled by a
number into bins (`v * bins / 256`), a division by #defines or template values (`i / (QK / 2)`), an
epsilon under a root, bytes that only go through a mask or a shift, and strides that must differ from
one another and hold whole rows. Each kernel is written for these tests, in the shape of real code."""

from kt_tui.kernel.draft import draft
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.source import find_kernels

from .extent_kernels import _all_sizes as _points
from .extent_kernels import _draft, _lengths
from .test_draft_shapes import _grid

SAMPLE_2D = """
__global__ void sample_nearest(float *out, const float *px, const float *py, const float *img, int npts,
                               int w, int h, int pitch) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npts) return;
    int x = min(max((int)px[i], 0), w - 1);
    int y = min(max((int)py[i], 0), h - 1);
    out[i] = img[y * pitch + x];
}
"""


def test_a_coordinate_clamped_below_by_max_and_above_by_min_bounds_the_array_it_indexes():
    spec = _draft(SAMPLE_2D)
    args = {a.name: a for a in spec.args}
    assert "pitch" not in spec.sizes  # a stride, drafted from the row it steps over
    for at in _points(spec):
        assert at["w"] != at["h"]
        assert at["pitch"] > at["w"]
        assert _lengths(spec, at)["img"] >= (at["h"] - 1) * at["pitch"] + at["w"]
    assert evaluate(args["img"].size, spec.sizes) < evaluate(args["px"].size, spec.sizes)  # not the problem size


VOLUME = """
__device__ float at(const float *vol, size_t pitch, int ny, int x, int y, int z) {
    return ((const float *)((const char *)vol + ((size_t)z * ny + y) * pitch))[x];
}
__global__ void gather_voxels(float *out, const float *px, const float *py, const float *pz, int npts,
                              const float *vol, size_t pitch, int nx, int ny, int nz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npts) return;
    int x = min(max((int)px[i], 0), nx - 1);
    int y = min(max((int)py[i], 0), ny - 1);
    int z = min(max((int)pz[i], 0), nz - 1);
    out[i] = at(vol, pitch, ny, x, y, z);
}
"""


def test_a_count_of_rows_times_a_slice_number_is_a_size_and_the_byte_pitch_a_stride():
    spec = _draft(VOLUME)
    args = {a.name: a for a in spec.args}
    assert {"nx", "ny", "nz"} <= set(spec.sizes)  # counts, not strides derived from one another
    for at in _points(spec):
        assert len({at["nx"], at["ny"], at["nz"]}) == 3
        assert min(at["nx"], at["ny"], at["nz"]) >= 2
        assert at["pitch"] > 4 * at["nx"]  # bytes, padded past a row of floats
        assert _lengths(spec, at)["vol"] >= (at["nz"] * at["ny"] - 1) * at["pitch"] // 4 + at["nx"]
    assert evaluate(args["vol"].size, spec.sizes) > 0


HIST_RESCALED = """
__global__ void hist_rescaled(unsigned int *hist, const unsigned char *img, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[img[i] * bins / 256], 1u);
}
"""


def test_bytes_rescaled_by_a_number_into_bins_cover_their_range_and_the_bins_size_the_histogram():
    spec = _draft(HIST_RESCALED)
    args = {a.name: a for a in spec.args}
    assert args["img"].low == 0 and args["img"].high >= 250  # not [0, 1): every bin gets counts
    for at in _points(spec):
        assert 2 <= at["bins"] <= 256
        assert _lengths(spec, at)["hist"] >= at["bins"]


NIBBLES = """
template <int G>
__global__ void unpack_nibbles(const unsigned char *q, const float *scale, float *out, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k / 2) return;
    int g = i / (G / 2);
    int j = i % (G / 2);
    int v = q[i];
    out[g * G + j] = ((v & 0x0F) - 8) * scale[g];
    out[g * G + j + G / 2] = ((v >> 4) - 8) * scale[g];
}
"""


def test_an_index_divided_by_template_values_is_bounded_and_masked_bytes_keep_their_high_bits():
    d = draft(find_kernels(NIBBLES)[0], NIBBLES)
    spec = d.spec
    args = {a.name: a for a in spec.args}
    assert not [w for key, w in d.guesses if key in ("args.scale", "args.out") and "could not bound" in w]
    assert args["q"].high >= 250  # the high nibble's top bits set
    g = int(spec.kernel.split("<")[1].strip(" >"))
    for at in _points(spec):
        lengths = _lengths(spec, at)
        assert lengths["out"] >= at["k"]
        assert lengths["scale"] >= -(-at["k"] // g)
        assert lengths["out"] < 2 * at["k"] + 2 * g  # bounded by k, not by the problem size guessed


RMS = """
__global__ void rms_scale(const float *x, float *y, int nrows, int ncols, float eps) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    float ss = 0.0f;
    for (int c = 0; c < ncols; c++) ss += x[r * ncols + c] * x[r * ncols + c];
    float s = rsqrtf(ss / ncols + eps);
    for (int c = 0; c < ncols; c++) y[r * ncols + c] = x[r * ncols + c] * s;
}
"""

NORMALISE = """
__global__ void normalise(const float *v, float *out, const float *norm, int n, float tiny, float gain) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = gain * v[i] / (norm[i] + tiny);
}
"""


def test_a_float_added_under_a_root_or_a_denominator_is_a_small_epsilon():
    d = draft(find_kernels(RMS)[0], RMS)
    eps = next(a for a in d.spec.args if a.name == "eps")
    assert 0 < eps.value <= 1e-3
    assert any(key == "args.eps" and "epsilon" in w for key, w in d.guesses)
    args = {a.name: a.value for a in draft(find_kernels(NORMALISE)[0], NORMALISE).spec.args}
    assert 0 < args["tiny"] <= 1e-3
    assert args["gain"] > 0.5  # a factor outside the denominator keeps a value that changes the result


SOBEL_STEPS = """
__global__ void edges(const unsigned char *src, int src_step, unsigned char *dst, int dst_step, int width,
                      int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1) return;
    int d = src[(y + 1) * src_step + x] - src[(y - 1) * src_step + x];
    int e = src[y * src_step + x + 1] - src[y * src_step + x - 1];
    dst[y * dst_step + x] = (unsigned char)((abs(d) + abs(e)) >> 1);
}
"""


def test_a_step_of_an_image_written_inside_its_border_holds_the_whole_row_and_two_steps_differ():
    spec = _draft(SOBEL_STEPS)
    for at in _points(spec):
        assert at["dst_step"] > at["width"]  # the border columns are the image's too
        assert at["src_step"] > at["width"]
        assert at["src_step"] != at["dst_step"]  # a kernel that swaps them fails


GEAM = """
__global__ void add_t_batched(int m, int n, const float *A, int lda, long long sa, const float *B, int ldb,
                              long long sb, float *C, int ldc, long long sc, int batch) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;
    if (i < m && j < n && b < batch)
        C[b * sc + (long long)i * ldc + j] = A[b * sa + (long long)j * lda + i] + B[b * sb + (long long)i * ldb + j];
}
"""


def test_leading_dimensions_of_one_span_differ_and_a_batch_stride_holds_whole_padded_rows():
    spec = _draft(GEAM)
    for at in _points(spec):
        assert at["ldb"] != at["ldc"]
        assert min(at["ldb"], at["ldc"]) > at["n"] and at["lda"] > at["m"]
        assert at["sa"] >= at["n"] * at["lda"]
        assert at["sb"] >= at["m"] * at["ldb"]
        assert at["sc"] >= at["m"] * at["ldc"]


SHIFTED = """
__global__ void shift_scale(float *out, const float *a, int n, int scale, int bias) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * scale + bias;
}
"""


def test_ints_that_size_nothing_are_drafted_apart():
    d = draft(find_kernels(SHIFTED)[0], SHIFTED)
    values = {a.name: a.value for a in d.spec.args if not a.is_array}
    assert values["scale"] != values["bias"]  # a kernel that swaps them fails
    assert min(values["scale"], values["bias"]) > 1


WARPS_A_BLOCK = """
template <int WARPS>
__global__ void row_sums(const float *x, float *y, int rows, int cols) {
    int row = blockIdx.x * WARPS + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += x[(size_t)row * cols + c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
    if (lane == 0) y[row] = s;
}
"""


def test_blockidx_times_a_warp_count_plus_the_warp_number_is_a_warp_per_row_in_blocks_of_whole_warps():
    spec = _draft(WARPS_A_BLOCK)
    warps = int(spec.kernel.split("<")[1].strip(" >"))
    assert 1 < warps <= 32
    assert spec.tune_params["block_size_x"] == [32 * warps]
    for at in _points(spec):
        blocks, threads = _grid(spec, at, 0)
        assert blocks * threads // 32 >= at["rows"]  # a warp for every row
        assert blocks * warps < at["rows"] + warps  # and no more blocks than the rows need


GET_ROWS = """
__global__ void get_rows(const float *src, const int *ids, float *dst, int ncols, int nids) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y;
    if (c >= ncols) return;
    dst[r * ncols + c] = src[ids[r] * ncols + c];
}
"""


def test_rows_picked_by_loaded_values_size_the_table_in_whole_rows_and_bound_the_values_by_its_rows():
    spec = _draft(GET_ROWS)
    ids = next(a for a in spec.args if a.name == "ids")
    for at in _points(spec):
        rows = evaluate(ids.high, at)
        assert rows > 1  # not [0, 1): more than one row is read
        assert _lengths(spec, at)["src"] >= rows * at["ncols"]


LABELS = """
#define INF 0x3fffffff
__global__ void count_reached(const int *labels, const int *dist, int *counts, int n, int nlabels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || dist[i] >= INF) return;
    int l = labels[i];
    if (l >= 0 && l < nlabels) atomicAdd(&counts[l], 1);
}
"""


def test_values_tested_below_a_size_stay_below_it_and_values_tested_against_a_sentinel_reach_both_sides():
    spec = _draft(LABELS)
    args = {a.name: a for a in spec.args}
    for at in _points(spec):
        assert args["labels"].low == 0 and evaluate(args["labels"].high, at) == at["nlabels"] > 2  # no 0/1 flags
    assert args["dist"].low == 0 and args["dist"].high > 0x3FFFFFFF  # some reached, some not


TILE_TRANSPOSE = """
template <typename T, int TILE>
__global__ void transpose(T *out, const T *in, int rows, int cols) {
    __shared__ T tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
"""


def test_a_tile_on_two_axes_is_a_square_block_and_its_transposed_write_folds_no_axis():
    spec = _draft(TILE_TRANSPOSE)
    tile = int(spec.kernel.split(",")[1].strip(" >"))
    assert tile * tile <= 1024 and tile * (tile + 1) * 4 <= 48 * 1024
    assert spec.tune_params["block_size_x"] == spec.tune_params["block_size_y"] == [tile]
    for at in _points(spec):
        for axis, size in ((0, at["cols"]), (1, at["rows"])):
            blocks, threads = _grid(spec, at, axis)
            assert size <= blocks * threads < size + threads


SCALES_PER_BLOCK = """
#define QB 32
__global__ void block_scales(const float *x, float *q, float *scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    q[i] = x[i] * 0.5f;
    if (i % QB == 0) scale[i / QB] = x[i];
}
"""


def test_an_index_divided_by_a_define_is_bounded_by_the_size_over_it():
    spec = _draft(SCALES_PER_BLOCK)
    for at in _points(spec):
        assert -(-at["n"] // 32) <= _lengths(spec, at)["scale"] <= at["n"] // 32 + 2


def test_threads_split_into_groups_by_a_template_value_are_whole_groups_at_every_size():
    spec = _draft(NIBBLES)
    g = int(spec.kernel.split("<")[1].strip(" >"))
    assert g >= 16  # groups as quantised blocks are, not a degenerate 4
    for at in _points(spec):
        assert at["k"] % g == 0 and at["k"] >= 2 * g  # whole groups, two at least
        assert _lengths(spec, at)["scale"] >= at["k"] // g
    assert len(spec.extra_sizes()) == 2  # still checked at a ragged and a small size


VECTORISED = """
__global__ void scale_vec4(const float *x, float *y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        float4 v = reinterpret_cast<const float4 *>(x)[i];
        v.x *= a; v.y *= a; v.z *= a; v.w *= a;
        reinterpret_cast<float4 *>(y)[i] = v;
    }
}
"""


def test_a_reinterpret_cast_to_a_vector_type_reads_and_writes_four_elements_an_index():
    spec = _draft(VECTORISED)
    args = {a.name: a for a in spec.args}
    assert args["y"].output and not args["x"].output
    for at in _points(spec):
        lengths = _lengths(spec, at)
        assert 4 * (at["n"] // 4) <= lengths["x"] <= at["n"] + 4
        assert 4 * (at["n"] // 4) <= lengths["y"] <= at["n"] + 4


TEMPLATE_COMPLEX = """
#include <thrust/complex.h>
template <typename T>
__global__ void cscale(thrust::complex<T> *z, const T *mag, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = z[i] * mag[i];
}
"""


def test_a_complex_of_a_template_type_is_a_pair_of_the_instantiated_floats():
    d = draft(find_kernels(TEMPLATE_COMPLEX)[0], TEMPLATE_COMPLEX)
    z = next(a for a in d.spec.args if a.name == "z")
    assert (d.spec.kernel, z.type) == ("cscale<float>", "float2")
    assert not [w for key, w in d.guesses if key == "args.z" and "not a number type" in w]


REDUCE_TEMPLATE = """
template <unsigned int blockSize>
__global__ void reduce6(const int *in, int *out, unsigned int n) {
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + tid;
    unsigned int gridSize = blockSize * 2 * gridDim.x;
    int s = 0;
    while (i < n) { s += in[i]; if (i + blockSize < n) s += in[i + blockSize]; i += gridSize; }
    sdata[tid] = s;
    __syncthreads();
    for (unsigned int h = blockSize / 2; h > 0; h >>= 1) { if (tid < h) sdata[tid] = s = s + sdata[tid + h]; __syncthreads(); }
    if (tid == 0) out[blockIdx.x] = s;
}
"""


def test_a_template_block_size_in_a_product_with_blockidx_is_the_block():
    spec = _draft(REDUCE_TEMPLATE)
    block = int(spec.kernel.split("<")[1].strip(" >"))
    assert block >= 32 and spec.tune_params["block_size_x"] == [block]  # the kernel sums blockSize partials


ROPE = """
__global__ void rotate_pairs(const float *x, float *dst, int ncols, int nrows, const int *pos, int rows_per_pos) {
    const int col = 2 * (blockDim.y * blockIdx.y + threadIdx.y);
    if (col >= ncols) return;
    const int row = blockDim.x * blockIdx.x + threadIdx.x;
    if (row >= nrows) return;
    const int i = row * ncols + col;
    const float t = pos[row / rows_per_pos] * 0.01f;
    dst[i] = x[i] * cosf(t) - x[i + 1] * sinf(t);
    dst[i + 1] = x[i] * sinf(t) + x[i + 1] * cosf(t);
}
"""


def test_a_thread_per_pair_launches_half_the_columns_and_an_index_over_a_scalar_stays_inside():
    d = draft(find_kernels(ROPE)[0], ROPE)
    spec = d.spec
    assert not [w for key, w in d.guesses if key == "args.pos" and "could not bound" in w]
    for at in _points(spec):
        blocks, threads = _grid(spec, at, 1)
        assert at["ncols"] / 2 <= blocks * threads < at["ncols"] / 2 + threads  # a thread per pair of columns
        assert at["nrows"] <= _lengths(spec, at)["pos"] <= at["nrows"] * at["ncols"]


UPSAMPLE = """
__global__ void upsample_nearest(const float *in, float *out, int in_w, int in_h, int out_w, int out_h) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= out_w * out_h) return;
    int ox = idx % out_w, oy = idx / out_w;
    int ix = ox * in_w / out_w, iy = oy * in_h / out_h;
    out[idx] = in[iy * in_w + ix];
}
"""


def test_a_coordinate_rescaled_from_one_size_to_another_indexes_the_smaller_image_whole():
    spec = _draft(UPSAMPLE)
    assert "in_h" in spec.sizes  # a size, not a stride drafted from in_w
    for at in _points(spec):
        assert at["in_w"] != at["in_h"] and min(at["in_w"], at["in_h"]) > 1
        assert at["in_w"] * at["in_h"] <= _lengths(spec, at)["in"] <= (at["in_w"] + 1) * (at["in_h"] + 1)


SPECTRUM = """
#include <cufft.h>
__global__ void spectrum_mag(const cufftComplex *spec, float *mag, int nx, int ny, size_t pitch_bytes) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const cufftComplex *row = (const cufftComplex *)((const char *)spec + y * pitch_bytes);
    mag[y * nx + x] = sqrtf(row[x].x * row[x].x + row[x].y * row[x].y);
}
"""


def test_a_byte_pitch_of_complex_rows_holds_eight_bytes_an_element():
    spec = _draft(SPECTRUM)
    for at in _points(spec):
        assert at["pitch_bytes"] > 8 * at["nx"]
        assert _lengths(spec, at)["spec"] >= (at["ny"] - 1) * at["pitch_bytes"] // 8 + at["nx"]


DEPTH_TO_SPACE = """
__global__ void depth_to_space(float *out, const float *in, int channels, int h, int w, int r) {
    const int out_c = channels / (r * r);
    const int total = out_c * h * r * w * r;
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    out[idx] = in[idx];
}
"""


def test_a_size_divided_by_a_product_of_sizes_is_a_size_of_its_own_and_exact():
    spec = _draft(DEPTH_TO_SPACE)
    channels = next(a for a in spec.args if a.name == "channels")
    for at in _points(spec):
        c = evaluate(channels.value, at)
        assert at["r"] > 1 and c % (at["r"] * at["r"]) == 0 and c >= at["r"] * at["r"]
        blocks, threads = _grid(spec, at, 0)
        assert c * at["h"] * at["w"] <= blocks * threads < c * at["h"] * at["w"] + threads


RELAX = """
#define UNREACHED 0x7fffff00
__global__ void relax(const int *src, const int *dst, const int *w, const int *dist, int *next, int m) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    int d = dist[src[e]];
    if (d >= UNREACHED) return;
    atomicMin(&next[dst[e]], d + w[e]);
}
"""


def test_weights_added_to_a_distance_in_an_atomic_min_are_not_negative():
    d = draft(find_kernels(RELAX)[0], RELAX)
    args = {a.name: a for a in d.spec.args}
    assert args["w"].low == 0 and 1 < args["w"].high <= 1 << 20
    assert args["dist"].low == 0 and args["dist"].high > 0x7FFFFF00  # some vertices unreached


VALUES_PER_THREAD = """
template <typename T, int VPT>
__global__ void add_vpt(const T *a, const T *b, T *c, int n) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * VPT;
    for (int k = 0; k < VPT; k++)
        if (base + k < n) c[base + k] = a[base + k] + b[base + k];
}
"""


def test_a_thread_that_loops_over_values_per_thread_launches_a_thread_every_vpt_elements():
    spec = _draft(VALUES_PER_THREAD)
    vpt = int(spec.kernel.split(",")[1].strip(" >"))
    for at in _points(spec):
        blocks, threads = _grid(spec, at, 0)
        assert at["n"] <= blocks * threads * vpt < at["n"] + threads * vpt  # every element, few idle threads


BITMASK = """
__global__ void set_bits(const float *x, unsigned int *mask, float t, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > t) atomicOr(&mask[i / 32], 1u << (i % 32));
}
"""


def test_an_index_split_but_never_put_together_again_keeps_ragged_check_sizes():
    spec = _draft(BITMASK)
    assert any(t["sizes"]["n"] % 32 for t in spec.extra_sizes())  # the last word only partly set is checked


STENCIL_TEMPLATE = """
template <int RADIUS, int BLOCK>
__global__ void stencil_1d(const float *in, float *out, int n) {
    __shared__ float temp[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * BLOCK + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    temp[l] = g < n ? in[g + RADIUS] : 0.0f;
    if (threadIdx.x < RADIUS) { temp[l - RADIUS] = in[g]; temp[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK + RADIUS] : 0.0f; }
    __syncthreads();
    if (g < n) { float r = 0.0f; for (int o = -RADIUS; o <= RADIUS; o++) r += temp[l + o]; out[g] = r; }
}
"""


def test_a_radius_beside_the_block_size_in_a_shared_extent_is_small():
    spec = _draft(STENCIL_TEMPLATE)
    radius, block = (int(v) for v in spec.kernel.split("<")[1].strip(" >").split(","))
    assert 1 <= radius < block // 4 and spec.tune_params["block_size_x"] == [block]


FLAT_GRID = """
__global__ void per_block_norm(const float *x, float *norms, int nitems, int len) {
    int item = blockIdx.y * gridDim.x + blockIdx.x;
    if (item >= nitems) return;
    __shared__ float part[256];
    float s = 0.0f;
    for (int k = threadIdx.x; k < len; k += blockDim.x) s += x[(size_t)item * len + k] * x[(size_t)item * len + k];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) { if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h]; __syncthreads(); }
    if (threadIdx.x == 0) norms[item] = sqrtf(part[0]);
}
"""


def test_a_block_number_flattened_over_the_grid_is_one_block_per_item_on_x():
    spec = _draft(FLAT_GRID)
    assert "block_size_y" not in spec.tune_params  # no threads on y
    for at in _points(spec):
        assert _grid(spec, at, 0)[0] == at["nitems"] and _grid(spec, at, 1)[0] == 1
