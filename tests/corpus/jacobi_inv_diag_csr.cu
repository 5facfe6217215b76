// shape modelled on: the setup of a point-Jacobi smoother or preconditioner from a CSR matrix (AMGX's and Ginkgo's Jacobi setup, hypre's diagonal scaling, the dinv of cuSPARSE-based PCG solvers): a thread per row, row_ptr n + 1 long, the row's entries scanned for the column equal to the row, dinv[i] = omega / a_ii with the damping omega, 1 where the row has no diagonal entry or a zero one, written from scratch for kt-tui's corpus
__global__ void jacobi_inv_diag(int n, const int *row_ptr, const int *col_idx, const double *vals, double omega,
                                double *dinv)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double d = 0.0;
    const int end = row_ptr[i + 1];
    for (int k = row_ptr[i]; k < end; ++k) {
        if (col_idx[k] == i) {
            d = vals[k];
            break;
        }
    }
    dinv[i] = d != 0.0 ? omega / d : 1.0;
}
