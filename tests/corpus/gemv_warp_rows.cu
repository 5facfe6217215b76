// shape modelled on: ggml / llama.cpp mul_mat_vec kernels (one warp per matrix row: row = blockIdx.x * blockDim.y + threadIdx.y, the 32 lanes stride the row, then a shuffle reduction), written from scratch for kt-tui's corpus
// blockDim.x is 32: threadIdx.x is the lane
__global__ void gemv_warp_rows(float *y, const float *A, const float *x, int rows, int cols)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= rows)
        return;
    const float *a = A + (size_t)row * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 32)
        sum += a[c] * x[c];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xffffffff, sum, offset);
    if (threadIdx.x == 0)
        y[row] = sum;
}
