// shape modelled on: LAPACK's stpttr and cuSOLVER's / MAGMA's packed-to-full copies of a symmetric matrix (the lower triangle packed by columns, as spmv and sptrf store it): a 2-D grid with a thread per element of the n x n column-major output, columns lda floats apart, element (i, j) read from the packed n * (n + 1) / 2 array at its lower-triangle position and mirrored into the upper triangle, written from scratch for kt-tui's corpus
__global__ void tpttr_lower(const float *ap, int n, float *a, int lda)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n)
        return;
    const int r = i > j ? i : j;
    const int c = i > j ? j : i;
    // column c of the packed lower triangle starts after c columns of n, n - 1, ... entries
    const size_t k = (size_t)c * (2 * n - c + 1) / 2 + (r - c);
    a[(size_t)j * lda + i] = ap[k];
}
