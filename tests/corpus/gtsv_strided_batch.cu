// shape modelled on: cuSPARSE gtsv2StridedBatch (batch_count tridiagonal systems of m unknowns; system i's sub-, main and super-diagonal and right-hand side start batch_stride values past system i - 1's), as one thread per system running the Thomas algorithm, written from scratch for kt-tui's corpus
// x holds the right-hand sides and is overwritten with the solutions; cp is scratch laid out as x
__global__ void gtsv_strided_batch(int m, const float *dl, const float *d, const float *du, float *x, int batch_count,
                                   int batch_stride, float *cp)
{
    int sys = blockIdx.x * blockDim.x + threadIdx.x;
    if (sys >= batch_count)
        return;
    size_t base = (size_t)sys * batch_stride;
    const float *a = dl + base;
    const float *b = d + base;
    const float *c = du + base;
    float *y = x + base;
    float *w = cp + base;
    w[0] = c[0] / b[0];
    y[0] = y[0] / b[0];
    for (int i = 1; i < m; i++) {
        float denom = b[i] - a[i] * w[i - 1];
        w[i] = c[i] / denom;
        y[i] = (y[i] - a[i] * y[i - 1]) / denom;
    }
    for (int i = m - 2; i >= 0; i--)
        y[i] -= w[i] * y[i + 1];
}
