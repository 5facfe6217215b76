// shape modelled on: the last-dimension logsumexp of PyTorch ATen (torch.logsumexp(x, dim=-1) of a strided 2-D view: each row's cols values, rows ld elements apart), one warp per row with a shuffle max then a shuffle sum, in double, written from scratch for kt-tui's corpus
__global__ void logsumexp_rows(const double *x, int rows, int cols, int ld, double *out)
{
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows)
        return;
    const double *r = x + (size_t)row * ld;
    double m = -INFINITY;
    for (int c = lane; c < cols; c += 32)
        m = fmax(m, r[c]);
    for (int o = 16; o > 0; o >>= 1)
        m = fmax(m, __shfl_xor_sync(0xffffffff, m, o));
    double s = 0.0;
    for (int c = lane; c < cols; c += 32)
        s += exp(r[c] - m);
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffff, s, o);
    if (lane == 0)
        out[row] = m + log(s);
}
