// shape modelled on: cell-centred multigrid restriction by averaging 2 x 2 x 2 fine cells (AMReX's amrex_avgdown and MLMG's restriction, HPGMG's and PETSc PCMG's cell-centred restriction): a 3-D grid over the coarse cells of a box nfx / 2 x nfy / 2 x nfz / 2, the fine array with ng ghost cells on every side (rows nfx + 2 ng apart, planes (nfx + 2 ng) (nfy + 2 ng) apart), the coarse array dense without ghosts, written from scratch for kt-tui's corpus
__global__ void restrict_avgdown(const double *fine, int nfx, int nfy, int nfz, int ng, double *coarse)
{
    const int nx = nfx / 2, ny = nfy / 2, nz = nfz / 2;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    const int k = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= nx || j >= ny || k >= nz)
        return;
    const size_t sx = nfx + 2 * ng;
    const size_t sxy = sx * (nfy + 2 * ng);
    const double *f = fine + (2 * k + ng) * sxy + (2 * j + ng) * sx + (2 * i + ng);
    const double sum = f[0] + f[1] + f[sx] + f[sx + 1] + f[sxy] + f[sxy + 1] + f[sxy + sx] + f[sxy + sx + 1];
    coarse[((size_t)k * ny + j) * nx + i] = 0.125 * sum;
}
