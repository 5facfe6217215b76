// shape modelled on: a time step of the 3-D acoustic wave equation by second-order finite differences (Devito's and Madagascar's acoustic modelling kernels, the SEG/EAGE benchmark propagators, with a damping term as in absorbing sponge layers): a 3-D grid with a thread per interior point ((nx - 2) x (ny - 2) x (nz - 2)), three packed volumes u_prev, u and u_next of nx * ny * nz, a 7-point Laplacian, the Courant factor c2 = (c dt / h)^2 and a damping eta, written from scratch for kt-tui's corpus
__global__ void wave3d_step(const float *u_prev, const float *u, float *u_next, int nx, int ny, int nz, float c2, float eta)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    const int z = blockIdx.z * blockDim.z + threadIdx.z + 1;
    if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
        return;
    const size_t plane = (size_t)nx * ny;
    const size_t i = (size_t)z * plane + (size_t)y * nx + x;
    const float c = u[i];
    const float lap = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - plane] + u[i + plane] - 6.0f * c;
    u_next[i] = (2.0f * c - (1.0f - eta) * u_prev[i] + c2 * lap) / (1.0f + eta);
}
