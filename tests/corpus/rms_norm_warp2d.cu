// shape modelled on: ggml-cuda norm.cu rms_norm_f32 (a warp of 32 lanes per row on 2-D blocks: row = blockIdx.x * blockDim.y + threadIdx.y, the lanes stride the row by the warp size, shuffle sums), written from scratch for kt-tui's corpus
// launched with blockDim.x = 32: threadIdx.x is the lane, threadIdx.y picks the row within the block
__global__ void rms_norm_rows(float *dst, const float *x, const float *weight, int nrows, int ncols, float eps)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    const int lane = threadIdx.x;
    if (row >= nrows)
        return;
    const float *xr = x + (size_t)row * ncols;
    float ss = 0.0f;
    for (int c = lane; c < ncols; c += warpSize)
        ss += xr[c] * xr[c];
    for (int mask = warpSize / 2; mask > 0; mask >>= 1)
        ss += __shfl_xor_sync(0xffffffff, ss, mask);
    const float scale = rsqrtf(ss / ncols + eps);
    for (int c = lane; c < ncols; c += warpSize)
        dst[(size_t)row * ncols + c] = scale * xr[c] * weight[c];
}
