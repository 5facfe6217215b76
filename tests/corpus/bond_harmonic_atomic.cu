// shape modelled on: the harmonic bond term of molecular dynamics codes (LAMMPS's bond_style harmonic, E = K (r - r0)^2 with K and r0 looked up by the bond's type; GROMACS's GPU bonded kernels, which scatter each bond's force into its two atoms' accumulators with atomicAdd): bonds as int2 atom pairs, a type per bond indexing a float2 (K, r0) table, positions as float4, forces a packed x, y, z float array, the bonds' energy summed into one double, a thread per bond, written from scratch for kt-tui's corpus
__global__ void bond_harmonic(const float4 *pos, const int2 *bonds, const int *btype, const float2 *params, int nbonds,
                              float *force, double *energy)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nbonds)
        return;
    const int2 ij = bonds[b];
    const float2 kr = params[btype[b]];
    const float4 pi = pos[ij.x];
    const float4 pj = pos[ij.y];
    const float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
    const float r = sqrtf(dx * dx + dy * dy + dz * dz);
    const float dr = r - kr.y;
    // the force on atom i, -dE/dr along (dx, dy, dz) / r; a bond of an atom with itself has none
    const float f = r > 0.0f ? -2.0f * kr.x * dr / r : 0.0f;
    atomicAdd(&force[3 * ij.x + 0], f * dx);
    atomicAdd(&force[3 * ij.x + 1], f * dy);
    atomicAdd(&force[3 * ij.x + 2], f * dz);
    atomicAdd(&force[3 * ij.y + 0], -f * dx);
    atomicAdd(&force[3 * ij.y + 1], -f * dy);
    atomicAdd(&force[3 * ij.y + 2], -f * dz);
    atomicAdd(energy, (double)(kr.x * dr * dr));
}
