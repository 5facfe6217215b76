// shape modelled on: MAGMA's column norms and scaling of a complex matrix (dznrm2 per column as magmablas_dznrm2_cols computes it, then zdscal by the inverse norm, the step of Gram-Schmidt and of QR panel code), column-major m x n cuDoubleComplex with leading dimension lda, one block per column summing |a|^2 in a shared-memory tree, each column's norm kept, written from scratch for kt-tui's corpus
#include <cuComplex.h>

#define NB 256

__global__ void znormalize_cols(int m, int n, cuDoubleComplex *A, int lda, double *norms)
{
    __shared__ double part[NB];
    const int j = blockIdx.x;
    if (j >= n)
        return;
    cuDoubleComplex *col = A + (size_t)j * lda;
    double s = 0.0;
    for (int i = threadIdx.x; i < m; i += blockDim.x)
        s += cuCreal(col[i]) * cuCreal(col[i]) + cuCimag(col[i]) * cuCimag(col[i]);
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    const double nrm = sqrt(part[0]);
    if (threadIdx.x == 0)
        norms[j] = nrm;
    const double inv = nrm > 0.0 ? 1.0 / nrm : 0.0;
    for (int i = threadIdx.x; i < m; i += blockDim.x)
        col[i] = make_cuDoubleComplex(cuCreal(col[i]) * inv, cuCimag(col[i]) * inv);
}
