// shape modelled on: the neighbour search of particle codes on a uniform grid (NVIDIA's CUDA samples "particles", Green's "Particle Simulation using CUDA": particles sorted by cell, cell c's particles cell_range[c].x .. cell_range[c].y - 1, cells of side h over a gx x gy x gz grid numbered (z * gy + y) * gx + x) applied to the SPH density sum of DualSPHysics- and Fluids-style solvers (rho_i = sum over particles j within h of m_j * 315 / (64 pi h^9) * (h^2 - r^2)^3, positions and masses as float4), one thread per particle visiting the 27 cells around its own, the cell clamped to the grid, written from scratch for kt-tui's corpus
#define PI_F 3.14159265f

__global__ void sph_density(const float4 *pos, const int2 *cell_range, int npart, int gx, int gy, int gz, float h,
                            float *density)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npart)
        return;
    const float4 p = pos[i];
    const int cx = min(max((int)floorf(p.x / h), 0), gx - 1);
    const int cy = min(max((int)floorf(p.y / h), 0), gy - 1);
    const int cz = min(max((int)floorf(p.z / h), 0), gz - 1);
    const float h2 = h * h;
    float rho = 0.0f;
    for (int z = max(cz - 1, 0); z <= min(cz + 1, gz - 1); ++z)
        for (int y = max(cy - 1, 0); y <= min(cy + 1, gy - 1); ++y)
            for (int x = max(cx - 1, 0); x <= min(cx + 1, gx - 1); ++x) {
                const int2 r = cell_range[(z * gy + y) * gx + x];
                for (int j = r.x; j < r.y; ++j) {
                    const float4 q = pos[j];
                    const float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
                    const float r2 = dx * dx + dy * dy + dz * dz;
                    if (r2 < h2) {
                        const float t = h2 - r2;
                        rho += q.w * t * t * t;
                    }
                }
            }
    const float h3 = h2 * h;
    density[i] = rho * 315.0f / (64.0f * PI_F * h3 * h3 * h3);
}
