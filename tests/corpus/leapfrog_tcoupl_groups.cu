// shape modelled on: the GPU leap-frog update of a molecular dynamics step with per-group temperature coupling (GROMACS's update_gpu leapfrog_kernel with its Berendsen / v-rescale lambda factors, OpenMM's integrateLangevin-style per-atom updates): a thread per atom, positions, velocities and forces as float3, an inverse mass per atom, each atom's T-coupling group (16-bit) indexing a table of lambda factors, v' = lambda * v + f * inv_mass * dt, x' = x + v' * dt, written from scratch for kt-tui's corpus
__global__ void leapfrog_tcoupl(int natoms, float dt, const float3 *f, const float *inv_mass,
                                const unsigned short *tc_group, const float *tc_lambda, float3 *x, float3 *v)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= natoms)
        return;
    const float l = tc_lambda[tc_group[i]];
    const float im = inv_mass[i] * dt;
    const float3 fi = f[i];
    float3 vi = v[i];
    vi.x = l * vi.x + fi.x * im;
    vi.y = l * vi.y + fi.y * im;
    vi.z = l * vi.z + fi.z * im;
    float3 xi = x[i];
    xi.x += vi.x * dt;
    xi.y += vi.y * dt;
    xi.z += vi.z * dt;
    v[i] = vi;
    x[i] = xi;
}
