// shape modelled on: BLAS sger / cuBLAS cublasSger (the rank-1 update A = alpha * x * y^T + A of an m x n column-major matrix whose columns lie lda floats apart, x and y read every incx-th and incy-th element), as one thread per element of A, written from scratch for kt-tui's corpus
__global__ void sger_kernel(int m, int n, float alpha, const float *x, int incx, const float *y, int incy, float *A,
                            int lda)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < n)
        A[(size_t)j * lda + i] += alpha * x[i * incx] * y[j * incy];
}
