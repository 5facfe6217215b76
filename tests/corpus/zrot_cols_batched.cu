// shape modelled on: the column rotation of one-sided Jacobi SVD and eigen solvers for batches of small complex matrices (cuSOLVER's gesvdjBatched, MAGMA's batched Jacobi sweeps, LAPACK zrot applied to a column pair): in matrix b, columns p[b] and q[b] of an m x n column-major cuDoubleComplex matrix (columns lda apart, matrices stride apart) become c * ap + s * aq and c * aq - conj(s) * ap with c real and s complex per matrix; a pair marked idle (p = q, or out of range, as an odd-order sweep's spare slot) is skipped; a thread per row on x, one block row per matrix on y, written from scratch for kt-tui's corpus
#include <cuComplex.h>

__global__ void zrot_cols_batched(cuDoubleComplex *A, int m, int n, int lda, long long stride, int batch, const int *p,
                                  const int *q, const double *c, const cuDoubleComplex *s)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y;
    if (i >= m || b >= batch)
        return;
    const int pc = p[b], qc = q[b];
    if (pc == qc || min(pc, qc) < 0 || max(pc, qc) >= n)
        return;
    cuDoubleComplex *a = A + b * stride;
    const cuDoubleComplex ap = a[(size_t)pc * lda + i];
    const cuDoubleComplex aq = a[(size_t)qc * lda + i];
    const double cb = c[b];
    const cuDoubleComplex sb = s[b];
    a[(size_t)pc * lda + i] = cuCadd(make_cuDoubleComplex(cb * ap.x, cb * ap.y), cuCmul(sb, aq));
    a[(size_t)qc * lda + i] = cuCsub(make_cuDoubleComplex(cb * aq.x, cb * aq.y), cuCmul(cuConj(sb), ap));
}
