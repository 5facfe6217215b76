// shape modelled on: applying a one-qubit gate to a state vector (Qiskit Aer's and qsim's single-qubit matrix kernels, cuStateVec's apply matrix): a thread per amplitude pair of a dim-long double2 state (dim / 2 pairs), pair k's amplitudes at k with a zero bit inserted at position target and at that index with the bit set, the 2 x 2 complex matrix u (row-major) applied in place, written from scratch for kt-tui's corpus
__global__ void apply_1q_gate(double2 *psi, long long dim, int target, const double2 *u)
{
    const long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= dim / 2)
        return;
    const long long low = (1LL << target) - 1;
    const long long i0 = ((k & ~low) << 1) | (k & low);
    const long long i1 = i0 | (1LL << target);
    const double2 a = psi[i0], b = psi[i1];
    const double2 u00 = u[0], u01 = u[1], u10 = u[2], u11 = u[3];
    psi[i0] = make_double2(u00.x * a.x - u00.y * a.y + u01.x * b.x - u01.y * b.y,
                           u00.x * a.y + u00.y * a.x + u01.x * b.y + u01.y * b.x);
    psi[i1] = make_double2(u10.x * a.x - u10.y * a.y + u11.x * b.x - u11.y * b.y,
                           u10.x * a.y + u10.y * a.x + u11.x * b.y + u11.y * b.x);
}
