// shape modelled on: the 9-point (Mehrstellen) Laplacian of 2-D multigrid smoothers and residuals (HPGMG's and AMReX's 9-point operators, the tiled-stencil pattern of NVIDIA's CUDA stencil examples): a block per TILE x TILE output tile (TILE = 16, a #define), the tile and a halo of R = 1 staged in a static shared array by loops over the block's threads, edges clamped, double values in rows ld apart, out = h2inv * (4 * (N + S + E + W) + corners - 20 * centre) / 6, written from scratch for kt-tui's corpus
#define TILE 16
#define R 1
#define SIDE (TILE + 2 * R)

__global__ void laplace9_tile(const double *u, int ld, int nx, int ny, double h2inv, double *out)
{
    __shared__ double s[SIDE][SIDE];
    const int x0 = blockIdx.x * TILE;
    const int y0 = blockIdx.y * TILE;
    for (int j = threadIdx.y; j < SIDE; j += blockDim.y)
        for (int i = threadIdx.x; i < SIDE; i += blockDim.x) {
            const int gx = min(max(x0 + i - R, 0), nx - 1);
            const int gy = min(max(y0 + j - R, 0), ny - 1);
            s[j][i] = u[(size_t)gy * ld + gx];
        }
    __syncthreads();
    for (int j = threadIdx.y; j < TILE; j += blockDim.y)
        for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
            const int x = x0 + i;
            const int y = y0 + j;
            if (x >= nx || y >= ny)
                continue;
            const int a = i + R, b = j + R;
            const double edges = s[b - 1][a] + s[b + 1][a] + s[b][a - 1] + s[b][a + 1];
            const double corners = s[b - 1][a - 1] + s[b - 1][a + 1] + s[b + 1][a - 1] + s[b + 1][a + 1];
            out[(size_t)y * ld + x] = h2inv * (4.0 * edges + corners - 20.0 * s[b][a]) / 6.0;
        }
}
