// shape modelled on: the trailing-matrix update of one elimination step of a batched LU without pivoting (MAGMA's magma_dgetrf_nopiv_batched and its dger / dgemm trailing updates, cuBLAS's getrfBatched step k for small matrices, Ginkgo's batched LU): a 3-D grid, x over rows k + 1 .. n - 1, y over columns k + 1 .. n - 1, z over the matrices, column-major doubles lda apart in matrices strideA apart, A[i, j] -= A[i, k] / A[k, k] * A[k, j] in place (row and column k only read), written from scratch for kt-tui's corpus
__global__ void lu_trailing_update(double *A, int n, int lda, long long strideA, int k, int batch)
{
    const int i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    const int j = k + 1 + blockIdx.y * blockDim.y + threadIdx.y;
    const int b = blockIdx.z * blockDim.z + threadIdx.z;
    if (i >= n || j >= n || b >= batch)
        return;
    double *a = A + b * strideA;
    const double l = a[i + (size_t)k * lda] / a[k + (size_t)k * lda];
    a[i + (size_t)j * lda] -= l * a[k + (size_t)j * lda];
}
