// shape modelled on: cuSPARSE bsrmv (y = alpha * A x + beta * y for a BSR matrix of mb x nb blocks, each block_dim x block_dim stored row-major, bsr_row_ptr and bsr_col_ind over block rows), one warp per scalar row of A (row r of block row r / block_dim) whose lanes stride the block row's blocks, a shuffle sum, written from scratch for kt-tui's corpus
__global__ void bsrmv_warp(int mb, int nb, float alpha, const float *bsr_val, const int *bsr_row_ptr, const int *bsr_col_ind,
                           int block_dim, const float *x, float beta, float *y)
{
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (row >= mb * block_dim)
        return;
    const int brow = row / block_dim;
    const int r = row % block_dim;
    const int end = bsr_row_ptr[brow + 1];
    float sum = 0.0f;
    for (int j = bsr_row_ptr[brow] + lane; j < end; j += 32) {
        const float *blk = bsr_val + ((size_t)j * block_dim + r) * block_dim;
        const float *xb = x + (size_t)bsr_col_ind[j] * block_dim;
        for (int c = 0; c < block_dim; c++)
            sum += blk[c] * xb[c];
    }
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffff, sum, off);
    if (lane == 0)
        y[row] = alpha * sum + beta * y[row];
}
