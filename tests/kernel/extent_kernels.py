"""Kernels of many index shapes for tests/kernel/test_draft_extents.py, modelled on the shapes of
public CUDA code, and the helpers that draft a spec from one and check its array lengths."""

from kt_tui.kernel.draft import draft_spec
from kt_tui.kernel.expr import evaluate
from kt_tui.kernel.source import find_kernels
from kt_tui.kernel.spec import check_spec, dump_spec, parse_spec

AOS = """
__global__ void drift(float *pos, const float *vel, float dt, int npart) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npart) return;
    for (int d = 0; d < 3; ++d)
        pos[p * 3 + d] += dt * vel[p * 3 + d];
}
"""
SQUARE = """
__global__ void sgemm(const float *A, const float *B, float *C, int dim) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < dim && col < dim) {
        float acc = 0.0f;
        for (int k = 0; k < dim; k++)
            acc += A[row * dim + k] * B[k * dim + col];
        C[row * dim + col] = acc;
    }
}
"""
HALO = """
__global__ void heat(float *next, const float *cur, int w, int h, float alpha) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int at = (y + 1) * (w + 2) + (x + 1);
    next[at] = cur[at] + alpha * (cur[at - 1] + cur[at + 1] + cur[at - w - 2] + cur[at + w + 2] - 4.0f * cur[at]);
}
"""
KMEANS = """
__global__ void assign(const float *points, const float *centres, int *label, int npoints, int ncentres, int ndims) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < npoints) {
        float best = 1e30f; int who = 0;
        for (int c = 0; c < ncentres; c++) {
            float d2 = 0.0f;
            for (int d = 0; d < ndims; d++) {
                float t = points[p * ndims + d] - centres[c * ndims + d];
                d2 += t * t;
            }
            if (d2 < best) { best = d2; who = c; }
        }
        label[p] = who;
    }
}
"""
LIFE = """
__global__ void step(const int *cells, int *out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        int around = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                if (dx || dy)
                    around += cells[((y + dy + height) % height) * width + (x + dx + width) % width];
        int me = cells[y * width + x];
        out[y * width + x] = (around == 3 || (me && around == 2)) ? 1 : 0;
    }
}
"""
ESCAPE = """
__global__ void escape(int *count, int width, int height, float x0, float y0, float dx, float dy, int max_iter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float cr = x0 + px * dx, ci = y0 + py * dy;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (zr * zr + zi * zi < 4.0f && it < max_iter) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    count[py * width + px] = it;
}
"""
GATHER = """
__global__ void pick(float *out, const float *table, const int *which, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[which[i] * 2 + 1];
}
"""
HELPER = """
__device__ float dist2(const float *p, int i, int j) {
    float dx = p[2 * i] - p[2 * j], dy = p[2 * i + 1] - p[2 * j + 1];
    return dx * dx + dy * dy;
}
__device__ void put(float *where, int k, float v) { where[k] = v; }
__global__ void closest(const float *pts, float *best, int npts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npts) return;
    float m = 1e30f;
    for (int j = 0; j < npts; j++) if (j != i) m = fminf(m, dist2(pts, i, j));
    put(best, i, m);
}
"""
STRIDED = """
__global__ void rowsum(const float *A, float *sums, int rows, int cols, int lda, int first) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        const float *row = A + r * lda + first;
        float s = 0.0f;
        for (int c = 0; c < cols; c++) s += row[c];
        *(sums + r) = s;
    }
}
"""
GRID_STRIDE = """
__global__ void axpy(float *y, const float *x, float a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] += a * x[i];
}
"""
BATCHED = """
__global__ void scale_rows(float *out, const float *in, int n, int batch) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.z;
    if (i < n && b < batch) out[b * n + i] = 2.0f * in[b * n + i];
}
"""
FLAT = """
__global__ void swap_axes(float *out, const float *in, int w, int h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    int x = i % w, y = i / w;
    out[y * w + x] = in[x * h + y];
}
"""
HIST = """
__global__ void count(const int *data, unsigned int *bins, int n, int nbins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i] % nbins], 1u);
}
"""

REDUCE = """
__global__ void partial_sums(const float *in, float *partial, unsigned int n) {
    extern __shared__ float buf[];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    buf[t] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = buf[0];
}
"""
TILED = """
#ifndef TILE
#define TILE 16
#endif
__global__ void tiled(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
        As[threadIdx.y][threadIdx.x] = (row < M && t * TILE + threadIdx.x < K) ? A[row * K + t * TILE + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (col < N && t * TILE + threadIdx.y < K) ? B[(t * TILE + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
"""
STENCIL_3D = """
#define RADIUS 2
__global__ void laplace(const float *u, float *v, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x + RADIUS;
    int y = blockIdx.y * blockDim.y + threadIdx.y + RADIUS;
    int z = blockIdx.z * blockDim.z + threadIdx.z + RADIUS;
    if (x >= nx - RADIUS || y >= ny - RADIUS || z >= nz - RADIUS) return;
    int c = (z * ny + y) * nx + x;
    float s = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; k++) s += u[c + k] + u[c + k * nx] + u[c + k * nx * ny];
    v[c] = s;
}
"""
FIXED_BLOCK = """
#define TILE_DIM 32
__global__ void flip(float *dst, const float *src, int width, int height) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    if (x < width && y < height) dst[x * height + y] = src[y * width + x];
}
"""
NBODY = """
__global__ void accel(const float4 *body, float3 *acc, int n, float soft) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 me = body[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float4 o = body[j];
        float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
        float r = rsqrtf(dx * dx + dy * dy + dz * dz + soft);
        float f = o.w * r * r * r;
        ax += dx * f; ay += dy * f; az += dz * f;
    }
    acc[i] = make_float3(ax, ay, az);
}
"""


def _draft(src):
    (k,) = find_kernels(src)
    spec = draft_spec(k, src=src)
    check_spec(spec, k)
    assert parse_spec(dump_spec(spec), k).to_dict() == spec.to_dict()
    return spec


def _all_sizes(spec):
    """The sizes at the default and at each check, with the scalar arguments' values besides."""
    tables = [spec.sizes] + [t["sizes"] for t in spec.extra_sizes()]
    return [{**t, **{a.name: evaluate(a.value, t) for a in spec.args if not a.is_array}} for t in tables]


def _lengths(spec, sizes):
    return {a.name: int(evaluate(a.size, sizes)) for a in spec.args if a.is_array}


def _covers(spec, needed):
    """At the spec's sizes and at every check size, each array is exactly as long as `needed` says
    (a function of the sizes): never shorter (out of bounds), never guessed longer."""
    for sizes in _all_sizes(spec):
        have = _lengths(spec, sizes)
        for name, f in needed.items():
            assert have[name] == f(sizes), (name, sizes, have[name], f(sizes))
