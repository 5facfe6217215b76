// shape modelled on: BLAS zher as cuBLAS's cublasZher computes it (A = alpha * x * x^H + A for an n x n Hermitian column-major cuDoubleComplex A with columns lda apart, alpha real, x read with increment incx (a negative one walks x from its end, as BLAS does), only the triangle that uplo names touched (0 lower, as CUBLAS_FILL_MODE_LOWER, else upper), the diagonal's imaginary part set to zero), a thread per element on a 2-D grid, row on x and column on y, written from scratch for kt-tui's corpus
#include <cuComplex.h>

__global__ void zher(int uplo, int n, double alpha, const cuDoubleComplex *x, int incx, cuDoubleComplex *A, int lda)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n)
        return;
    if (uplo == 0 ? i < j : i > j)
        return;
    // BLAS's start: element 0 of a negatively strided x lies last
    const long long kx = incx > 0 ? 0 : (long long)(1 - n) * incx;
    const cuDoubleComplex xi = x[kx + (long long)i * incx];
    const cuDoubleComplex xj = x[kx + (long long)j * incx];
    const cuDoubleComplex t = cuCmul(xi, cuConj(xj));
    cuDoubleComplex *a = A + (size_t)j * lda + i;
    const double re = a->x + alpha * t.x;
    const double im = i == j ? 0.0 : a->y + alpha * t.y;
    *a = make_cuDoubleComplex(re, im);
}
