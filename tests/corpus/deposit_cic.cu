// shape modelled on: cloud-in-cell charge deposition of particle-in-cell codes (PIConGPU / WarpX / PIC teaching kernels: each particle spreads its charge over the four grid nodes around it with bilinear weights, atomicAdd into the density grid, periodic in both directions), written from scratch for kt-tui's corpus
__global__ void deposit_cic(float *rho, int nx, int ny, float inv_dx, float inv_dy, const float *px, const float *py,
                            const float *charge, int num_particles)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= num_particles)
        return;
    float gx = px[p] * inv_dx;
    float gy = py[p] * inv_dy;
    int i = (int)floorf(gx);
    int j = (int)floorf(gy);
    float fx = gx - i;
    float fy = gy - j;
    i = (i % nx + nx) % nx;
    j = (j % ny + ny) % ny;
    int i1 = (i + 1) % nx;
    int j1 = (j + 1) % ny;
    float w = charge[p];
    atomicAdd(&rho[j * nx + i], w * (1.0f - fx) * (1.0f - fy));
    atomicAdd(&rho[j * nx + i1], w * fx * (1.0f - fy));
    atomicAdd(&rho[j1 * nx + i], w * (1.0f - fx) * fy);
    atomicAdd(&rho[j1 * nx + i1], w * fx * fy);
}
