// shape modelled on: the stream-and-collide step of the lattice Boltzmann method, D2Q9 with BGK collision in the pull scheme, as GPU LBM codes lay it out (Toelke's "Implementation of a Lattice Boltzmann kernel using CUDA", Sailfish, waLBerla): nine distribution planes (structure of arrays), each of ny rows pitch floats apart, plane q starting at q * ny * pitch; each cell pulls f_q from its upwind neighbour on a periodic nx x ny grid, sums the density and the velocity, relaxes towards the equilibrium by omega and writes its nine values to f_out, a thread per cell on a 2-D grid, written from scratch for kt-tui's corpus
__constant__ int EX[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int EY[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ float WQ[9] = {4.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36};

__global__ void lbm_d2q9(const float *f_in, float *f_out, int nx, int ny, int pitch, float omega)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;
    const size_t plane = (size_t)ny * pitch;
    float f[9];
    float rho = 0.0f, ux = 0.0f, uy = 0.0f;
    for (int q = 0; q < 9; ++q) {
        const int xs = (x - EX[q] + nx) % nx;
        const int ys = (y - EY[q] + ny) % ny;
        f[q] = f_in[q * plane + (size_t)ys * pitch + xs];
        rho += f[q];
        ux += EX[q] * f[q];
        uy += EY[q] * f[q];
    }
    ux /= rho;
    uy /= rho;
    const float usq = 1.5f * (ux * ux + uy * uy);
    for (int q = 0; q < 9; ++q) {
        const float eu = 3.0f * (EX[q] * ux + EY[q] * uy);
        const float feq = WQ[q] * rho * (1.0f + eu + 0.5f * eu * eu - usq);
        f_out[q * plane + (size_t)y * pitch + x] = f[q] - omega * (f[q] - feq);
    }
}
