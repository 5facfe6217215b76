// shape modelled on: DGL's SDDMM over a COO graph (the u_dot_v message: out[e] = <lhs[row[e]], rhs[col[e]]> for every edge e, int64 edge endpoints), one warp per edge whose lanes stride the feature dimension, a shuffle sum, written from scratch for kt-tui's corpus
__global__ void sddmm_coo_dot(const float *lhs, const float *rhs, float *out, const long long *row, const long long *col,
                              long long nnz, int dim)
{
    const long long e = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (e >= nnz)
        return;
    const float *a = lhs + row[e] * dim;
    const float *b = rhs + col[e] * dim;
    float acc = 0.0f;
    for (int f = lane; f < dim; f += 32)
        acc += a[f] * b[f];
    for (int off = 16; off > 0; off >>= 1)
        acc += __shfl_down_sync(0xffffffff, acc, off);
    if (lane == 0)
        out[e] = acc;
}
