// shape modelled on: an upper-triangular, non-unit matrix-vector product (BLAS's trmv with uplo = 'U', trans = 'N', diag = 'N'; the out-of-place form of MAGMA's and cuBLAS's trmv kernels): template <typename T> with float and double instantiated, a thread per row i summing A[i + j * lda] * x[j * incx] over the columns j >= i of a column-major n x n matrix, x read incx apart, y[i] written, written from scratch for kt-tui's corpus
template <typename T>
__global__ void trmv_upper(int n, const T *A, int lda, const T *x, int incx, T *y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    T sum = 0;
    for (int j = i; j < n; ++j)
        sum += A[i + (size_t)j * lda] * x[(size_t)j * incx];
    y[i] = sum;
}

template __global__ void trmv_upper<float>(int, const float *, int, const float *, int, float *);
template __global__ void trmv_upper<double>(int, const double *, int, const double *, int, double *);
