// shape modelled on: llama.cpp ggml-cuda norm.cu rms_norm_f32 (one warp per row: row = blockIdx.x * blockDim.y + threadIdx.y, the lanes stride the row, a butterfly shuffle sums the squares, then every lane scales its columns by the weight), written from scratch for kt-tui's corpus
// blockDim.x is 32 (threadIdx.x is the lane); x's rows lie stride_row floats apart, dst is packed
__global__ void rms_norm_rows(const float *x, const float *weight, float *dst, const int ncols, const int nrows,
                              const long long stride_row, const float eps)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    const int lane = threadIdx.x;
    if (row >= nrows)
        return;
    const float *xr = x + row * stride_row;
    float sumsq = 0.0f;
    for (int col = lane; col < ncols; col += 32) {
        const float v = xr[col];
        sumsq += v * v;
    }
    for (int mask = 16; mask > 0; mask >>= 1)
        sumsq += __shfl_xor_sync(0xffffffff, sumsq, mask, 32);
    const float scale = rsqrtf(sumsq / ncols + eps);
    float *out = dst + (size_t)row * ncols;
    for (int col = lane; col < ncols; col += 32)
        out[col] = scale * xr[col] * weight[col];
}
