// shape modelled on: the checkerboard Metropolis update of GPU Ising simulations (the NVIDIA ising-gpu and cuIsing codes: sites of one colour, (x + y) % 2 == color, flipped when a uniform draw is below exp(-2 beta s h), h the sum of the four periodic neighbours), int8 spins of +-1, one uint32 draw per site, a 2-D grid over the lattice, written from scratch for kt-tui's corpus
__global__ void ising_update(signed char *spins, const unsigned int *draws, int nx, int ny, int color, float beta)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny || ((x + y) & 1) != color)
        return;
    const int xl = x == 0 ? nx - 1 : x - 1;
    const int xr = x == nx - 1 ? 0 : x + 1;
    const int yu = y == 0 ? ny - 1 : y - 1;
    const int yd = y == ny - 1 ? 0 : y + 1;
    const int s = spins[y * nx + x];
    const int h = spins[y * nx + xl] + spins[y * nx + xr] + spins[yu * nx + x] + spins[yd * nx + x];
    const float u = draws[y * nx + x] * 2.3283064e-10f;
    if (u < expf(-2.0f * beta * s * h))
        spins[y * nx + x] = (signed char)-s;
}
