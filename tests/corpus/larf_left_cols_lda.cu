// shape modelled on: applying an elementary reflector H = I - tau v v^T from the left to an m x n column-major block (LAPACK's dlarf with side = 'L', the trailing update inside MAGMA's and cuSOLVER's geqr2 panels): a thread per column j, w = v^T A(:, j) then A(:, j) -= tau w v, v's first element taken as 1 (LAPACK's convention: the stored one holds beta), columns lda apart, written from scratch for kt-tui's corpus
__global__ void dlarf_left(int m, int n, const double *v, double tau, double *A, int lda)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n)
        return;
    double *a = A + (size_t)j * lda;
    double w = a[0];
    for (int i = 1; i < m; ++i)
        w += v[i] * a[i];
    w *= tau;
    a[0] -= w;
    for (int i = 1; i < m; ++i)
        a[i] -= w * v[i];
}
