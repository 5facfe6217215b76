// shape modelled on: the hopping term of a lattice field theory operator on a 4-D periodic lattice (the naive / Laplace part of the Wilson-Dirac operator in QUDA and Grid, openQCD's and the MILC code's site loops, here with a single complex component a site): a thread per site of lx * ly * lz * lt, x fastest, coordinates decoded from the flat index, the eight neighbours wrapped periodically, out = (mass + 8) psi - sum of neighbours, complex values as float2, written from scratch for kt-tui's corpus
__device__ int wrap(int v, int n)
{
    return v < 0 ? v + n : (v >= n ? v - n : v);
}

__global__ void lattice_laplace4d(const float2 *psi, int lx, int ly, int lz, int lt, float mass, float2 *out)
{
    const long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long vol = (long long)lx * ly * lz * lt;
    if (s >= vol)
        return;
    const int x = (int)(s % lx);
    const int y = (int)((s / lx) % ly);
    const int z = (int)((s / ((long long)lx * ly)) % lz);
    const int t = (int)(s / ((long long)lx * ly * lz));
    const long long sx = 1, sy = lx, sz = (long long)lx * ly, st = (long long)lx * ly * lz;
    const long long base = s - x * sx - y * sy - z * sz - t * st;
    const long long nb[8] = {
        base + wrap(x + 1, lx) * sx + y * sy + z * sz + t * st, base + wrap(x - 1, lx) * sx + y * sy + z * sz + t * st,
        base + x * sx + wrap(y + 1, ly) * sy + z * sz + t * st, base + x * sx + wrap(y - 1, ly) * sy + z * sz + t * st,
        base + x * sx + y * sy + wrap(z + 1, lz) * sz + t * st, base + x * sx + y * sy + wrap(z - 1, lz) * sz + t * st,
        base + x * sx + y * sy + z * sz + wrap(t + 1, lt) * st, base + x * sx + y * sy + z * sz + wrap(t - 1, lt) * st,
    };
    const float2 c = psi[s];
    float re = (mass + 8.0f) * c.x, im = (mass + 8.0f) * c.y;
    for (int d = 0; d < 8; ++d) {
        const float2 n = psi[nb[d]];
        re -= n.x;
        im -= n.y;
    }
    out[s] = make_float2(re, im);
}
