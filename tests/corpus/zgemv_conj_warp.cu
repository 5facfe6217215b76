// shape modelled on: cuBLAS's zgemv with trans = CUBLAS_OP_C (y = alpha * A^H x + beta * y for a column-major m x n cuDoubleComplex A with leading dimension lda, x of m entries incx apart and y of n entries incy apart, positive increments, alpha and beta read from device memory as under CUBLAS_POINTER_MODE_DEVICE), one warp per column of A: its lanes stride down the column summing conj(a) x, a shuffle tree, lane 0 scales and writes, written from scratch for kt-tui's corpus
#include <cuComplex.h>

__global__ void zgemv_conj_trans(int m, int n, const cuDoubleComplex *alpha, const cuDoubleComplex *A, int lda,
                                 const cuDoubleComplex *x, int incx, const cuDoubleComplex *beta, cuDoubleComplex *y,
                                 int incy)
{
    const int j = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (j >= n)
        return;
    const cuDoubleComplex *col = A + (size_t)j * lda;
    double re = 0.0, im = 0.0;
    for (int i = lane; i < m; i += 32) {
        const cuDoubleComplex a = col[i];
        const cuDoubleComplex v = x[(size_t)i * incx];
        re += cuCreal(a) * cuCreal(v) + cuCimag(a) * cuCimag(v);
        im += cuCreal(a) * cuCimag(v) - cuCimag(a) * cuCreal(v);
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        re += __shfl_down_sync(0xffffffff, re, offset);
        im += __shfl_down_sync(0xffffffff, im, offset);
    }
    if (lane == 0) {
        cuDoubleComplex *dst = y + (size_t)j * incy;
        *dst = cuCadd(cuCmul(*alpha, make_cuDoubleComplex(re, im)), cuCmul(*beta, *dst));
    }
}
