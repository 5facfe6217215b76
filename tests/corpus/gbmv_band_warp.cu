// shape modelled on: BLAS dgbmv (y = alpha * A x + beta * y for an m x n band matrix with kl sub- and ku super-diagonals in LAPACK band storage: A(i, j) at ab[ku + i - j + j * ldab], ldab >= kl + ku + 1), one warp per row of A whose lanes stride the row's band, then a shuffle reduction, written from scratch for kt-tui's corpus
__global__ void dgbmv_warp(int m, int n, int kl, int ku, double alpha, const double *ab, int ldab, const double *x,
                           double beta, double *y)
{
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= m)
        return;
    const int jlo = max(0, row - kl);
    const int jhi = min(n - 1, row + ku);
    double sum = 0.0;
    for (int j = jlo + lane; j <= jhi; j += 32)
        sum += ab[ku + row - j + (size_t)j * ldab] * x[j];
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffff, sum, off);
    if (lane == 0)
        y[row] = alpha * sum + beta * y[row];
}
