// shape modelled on: one colour's half-sweep of red-black successive over-relaxation for the 2-D Poisson equation (Numerical Recipes' sor with odd-even ordering; the red-black Gauss-Seidel smoothers of GPU Poisson and multigrid solvers, e.g. AMGX's and HPGMG's): u and f on an nx x ny grid of rows pitch floats apart, the boundary ring fixed, each thread one interior cell of the colour (x + y) % 2 == color, so a thread row covers half a grid row; the squared updates summed by a warp shuffle and one atomicAdd a warp into res2 for the convergence test, written from scratch for kt-tui's corpus
__global__ void sor_color(float *u, const float *f, int nx, int ny, int pitch, float h2, float omega, int color, float *res2)
{
    const int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    const int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + 1 + ((y + color + 1) & 1);
    float d2 = 0.0f;
    if (y < ny - 1 && x < nx - 1) {
        const size_t c = (size_t)y * pitch + x;
        const float gs = 0.25f * (u[c - 1] + u[c + 1] + u[c - pitch] + u[c + pitch] - h2 * f[c]);
        const float d = omega * (gs - u[c]);
        u[c] += d;
        d2 = d * d;
    }
    for (int off = 16; off > 0; off >>= 1)
        d2 += __shfl_down_sync(0xffffffffu, d2, off);
    if ((threadIdx.x + threadIdx.y * blockDim.x) % 32 == 0)
        atomicAdd(res2, d2);
}
