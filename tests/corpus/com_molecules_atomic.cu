// shape modelled on: per-molecule centres of mass in a periodic box (HOOMD-blue's and GROMACS' molecule COM computations, LAMMPS' compute com/chunk on GPUs): a thread per atom, its position unwrapped by its int3 image count times the box lengths, mass m = mass[type[i]] from a per-type table, m * r and m atomically added to com[3 * mol[i] ..] and mtot[mol[i]], written from scratch for kt-tui's corpus
__global__ void com_accumulate(const float4 *pos, const int3 *image, const int *type, const int *mol, int natoms,
                               const float *mass, float Lx, float Ly, float Lz, float *com, float *mtot)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= natoms)
        return;
    const float4 r = pos[i];
    const int3 img = image[i];
    const float m = mass[type[i]];
    const int c = mol[i];
    atomicAdd(&com[3 * c + 0], m * (r.x + img.x * Lx));
    atomicAdd(&com[3 * c + 1], m * (r.y + img.y * Ly));
    atomicAdd(&com[3 * c + 2], m * (r.z + img.z * Lz));
    atomicAdd(&mtot[c], m);
}
