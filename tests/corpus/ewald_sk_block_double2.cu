// shape modelled on: the structure factors of the reciprocal-space sum of Ewald summation (LAMMPS' KSPACE ewald eik_dot_r / coeffs, HOOMD-blue's and GROMACS' Ewald setup): a block per k-vector, the threads striding over the atoms (positions as double3, charges apart), S(k) = sum_j q_j exp(2 pi i (kx x / Lx + ky y / Ly + kz z / Lz)) for the integer k-vector (an int4, w unused) as a double2, reduced in a shared array of BLOCK double2 (BLOCK a #define) by halving, written from scratch for kt-tui's corpus
#define BLOCK 256

__global__ void ewald_structure_factor(const double3 *pos, const double *q, int natoms, const int4 *kvec, int nk, double Lx,
                                       double Ly, double Lz, double2 *sk)
{
    __shared__ double2 part[BLOCK];
    const int k = blockIdx.x;
    if (k >= nk)
        return;
    const int4 kv = kvec[k];
    const double two_pi = 6.283185307179586;
    const double fx = two_pi * kv.x / Lx;
    const double fy = two_pi * kv.y / Ly;
    const double fz = two_pi * kv.z / Lz;
    double2 s = make_double2(0.0, 0.0);
    for (int j = threadIdx.x; j < natoms; j += blockDim.x) {
        const double3 r = pos[j];
        double sn, cs;
        sincos(fx * r.x + fy * r.y + fz * r.z, &sn, &cs);
        s.x += q[j] * cs;
        s.y += q[j] * sn;
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x].x += part[threadIdx.x + half].x;
            part[threadIdx.x].y += part[threadIdx.x + half].y;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        sk[k] = part[0];
}
