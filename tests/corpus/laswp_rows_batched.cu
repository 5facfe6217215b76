// shape modelled on: batched row interchanges after a partial-pivoting LU (LAPACK's dlaswp with incx = 1, MAGMA's magma_dlaswp_batched, the row swaps inside cuSOLVER's getrs): the 1-based pivots ipiv[k1 - 1 .. k2 - 1] applied in order to a column-major matrix of n columns lda apart, a thread per column and y over the matrices, matrices strideA apart and pivot vectors stride_ipiv apart, written from scratch for kt-tui's corpus
__global__ void dlaswp_batched(int n, double *A, int lda, long long strideA, int k1, int k2, const int *ipiv,
                               int stride_ipiv, int batch)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= n || b >= batch)
        return;
    double *a = A + b * strideA + (size_t)col * lda;
    const int *piv = ipiv + (size_t)b * stride_ipiv;
    for (int i = k1 - 1; i < k2; ++i) {
        const int p = piv[i] - 1;
        if (p != i) {
            const double t = a[i];
            a[i] = a[p];
            a[p] = t;
        }
    }
}
