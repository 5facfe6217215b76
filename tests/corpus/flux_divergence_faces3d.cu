// shape modelled on: the conservative update of finite-volume codes from face-centred fluxes (AMReX's computeDivergence and the flux-divergence step of Castro and PeleC: for each of ncomp components, fx on the (nx + 1) x ny x nz x-faces, fy on nx x (ny + 1) x nz, fz on nx x ny x (nz + 1), every array x-fastest, one component after another), u -= dt / dx * (fx[i + 1] - fx[i]) + dt / dy * (...) + dt / dz * (...) in place, a thread per cell on a 3-D grid looping over the components, written from scratch for kt-tui's corpus
__global__ void flux_divergence(float *u, const float *fx, const float *fy, const float *fz, int nx, int ny, int nz,
                                int ncomp, float dt_dx, float dt_dy, float dt_dz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz)
        return;
    const size_t cells = (size_t)nx * ny * nz;
    const size_t c = ((size_t)k * ny + j) * nx + i;
    const size_t ix = ((size_t)k * ny + j) * (nx + 1) + i;
    const size_t iy = ((size_t)k * (ny + 1) + j) * nx + i;
    for (int n = 0; n < ncomp; ++n) {
        const float *gx = fx + n * ((size_t)(nx + 1) * ny * nz);
        const float *gy = fy + n * ((size_t)nx * (ny + 1) * nz);
        const float *gz = fz + n * ((size_t)nx * ny * (nz + 1));
        u[n * cells + c] -= dt_dx * (gx[ix + 1] - gx[ix]) + dt_dy * (gy[iy + nx] - gy[iy]) +
                            dt_dz * (gz[c + (size_t)nx * ny] - gz[c]);
    }
}
