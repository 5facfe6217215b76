"""Drafter rules made after seeing held-out batches 18 and 19, each on a kernel written here: a float
tolerance compared with the magnitude of a computed value, and a floor under a root or a log, are small;
a flag takes the branch that does more work; a size that grows the dynamic shared memory is bounded so a
launch fits the default 48 KiB; a shared tile walked by a loop stepping by a constant holds that many threads;
a row whose columns a min caps at sizes (`min(ends[r], width - 1)`) gets a stride past the cap."""

from __future__ import annotations

from kt_tui.kernel.expr import evaluate

from .test_draft_shapes import _draft, _grid, _points

PIVOTS = """
__global__ void solve2(const float2 *rows, const float *rhs, int n, float tol, float floor_v, float cut,
                       float *x, float *norm) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float2 r = rows[i];
    const float pivot = r.x * r.x - r.y * 0.5f;
    x[i] = fabsf(pivot) > tol ? rhs[i] / pivot : 0.0f;
    float ss = r.x * r.x + r.y * r.y;
    norm[i] = fabsf(rhs[i]) > cut ? sqrtf(fmaxf(ss, floor_v)) : 0.0f;
}
"""


def test_a_tolerance_on_a_computed_magnitude_and_a_floor_under_a_root_are_small():
    d = _draft(PIVOTS)
    args = {a.name: a for a in d.spec.args}
    assert 0 < args["tol"].value <= 1e-3  # before: 0.75, above most |pivot|: nearly every x zeroed
    assert 0 < args["floor_v"].value <= 1e-3  # before: 1.5, above most sums of squares: one value everywhere
    assert args["cut"].value == 0.75  # compared with a value read, not computed: no tolerance, left as it was
    said = dict(d.guesses)
    assert "tolerance" in said["args.tol"] and "floor" in said["args.floor_v"]


FLAGGED = """
__global__ void scaled_rows(const float *a, const float *d, int n, int skip_scale, int add_bias, float *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = a[i];
    v = skip_scale ? v : v / d[i];
    if (!add_bias) return;
    if (add_bias)
        v = v + d[i] * 0.5f;
    out[i] = v;
}
"""


def test_a_flag_takes_the_branch_that_does_more_work():
    d = _draft(FLAGGED)
    args = {a.name: a for a in d.spec.args}
    assert args["skip_scale"].value == 0  # before: 3, truthy: the division by d never checked
    assert args["add_bias"].value == 1
    assert "flag" in dict(d.guesses)["args.skip_scale"]


CENTROIDS = """
#define DIM 64
__global__ void nearest_centroid(const float *pts, int npts, const float *cent, int ncent, int *label) {
    extern __shared__ float c[];
    for (int t = threadIdx.x; t < ncent * DIM; t += blockDim.x)
        c[t] = cent[t];
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npts) return;
    int best = 0;
    float bd = 1e30f;
    for (int k = 0; k < ncent; ++k) {
        float d = 0.0f;
        for (int j = 0; j < DIM; ++j) {
            const float e = pts[i * DIM + j] - c[k * DIM + j];
            d += e * e;
        }
        if (d < bd) { bd = d; best = k; }
    }
    label[i] = best;
}
"""


def test_a_size_of_dynamic_shared_memory_fits_the_default_48_kib():
    d = _draft(CENTROIDS)
    spec = d.spec
    blocks = {k: max(v) for k, v in spec.tune_params.items()}
    for at in _points(spec):
        need = evaluate(spec.smem_size, {**blocks, **at})
        assert 4 * 64 * at["ncent"] <= need <= 48 * 1024  # before: ncent = 256, 64 KiB: the launch fails
        assert at["ncent"] >= 2
    assert "48 KiB" in dict(d.guesses)["sizes.ncent"]


TILE_WALK = """
#define T 16
#define STEP 4
__global__ void tile_flip(const float *in, int w, int h, float *out) {
    __shared__ float tile[T][T + 1];
    const int x = blockIdx.x * T + threadIdx.x;
    const int y0 = blockIdx.y * T + threadIdx.y;
    for (int r = 0; r < T; r += STEP)
        if (x < w && y0 + r < h)
            tile[threadIdx.y + r][threadIdx.x] = in[(y0 + r) * w + x];
    __syncthreads();
    for (int r = 0; r < T; r += STEP)
        if (x < w && y0 + r < h)
            out[(y0 + r) * w + x] = 2.0f * tile[threadIdx.y + r][T - 1 - threadIdx.x];
}
"""


def test_a_shared_tile_walked_by_a_loop_bounds_the_threads_to_its_step():
    spec = _draft(TILE_WALK).spec
    assert max(spec.tune_params["block_size_y"]) <= 4  # before: 16, rows 16 + 12 of a 16-row tile written
    assert spec.tune_params["block_size_x"] == [16]
    for at in _points(spec):  # a block still covers T rows: ceil(h / 16) blocks on y, each thread 4 rows
        assert _grid(spec, at, 1)[0] == -(-at["h"] // 16)


CAPPED = """
__global__ void capped_sums(const float *rows, int nrows, int width, int ld, const int *ends, float *out) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    const int end = min(ends[r], width - 1);
    const float *row = rows + (size_t)r * ld;
    float s = 0.0f;
    for (int c = 0; c < end; ++c)
        s += row[c] * (float)(c + 1);
    out[r] = s;
}
"""


def test_a_row_whose_columns_a_min_caps_at_sizes_gets_a_stride_past_the_cap():
    spec = _draft(CAPPED).spec
    args = {a.name: a for a in spec.args}
    for at in _points(spec):
        assert at["ld"] > at["width"] - 1  # before: ld = 3 (rows of ld per item), width = 100: rows overlap
        assert evaluate(args["rows"].size, at) >= (at["nrows"] - 1) * at["ld"] + at["width"] - 1
    assert args["ends"].low == 0  # still drawn as loop bounds, not at random around 0
