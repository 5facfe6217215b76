// shape modelled on: PyTorch's grid_sampler_2d forward (torch.nn.functional.grid_sample with mode = "bilinear", padding_mode = "zeros", align_corners = False: output pixel (y, x) of image n samples every channel of the NCHW input at the normalised point grid[n][y][x], -1 and 1 the outer edges of the corner pixels, so ix = ((gx + 1) W - 1) / 2; corners outside the input count as zero), one thread per output pixel on a 3-D grid (x across Wo, y across Ho, z across the batch) looping over the C channels, written from scratch for kt-tui's corpus
__global__ void grid_sample_bilinear(const float *in, int N, int C, int H, int W, const float2 *grid, int Ho, int Wo,
                                     float *out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int n = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= Wo || y >= Ho || n >= N)
        return;
    const float2 g = grid[((size_t)n * Ho + y) * Wo + x];
    const float ix = ((g.x + 1.0f) * W - 1.0f) * 0.5f;
    const float iy = ((g.y + 1.0f) * H - 1.0f) * 0.5f;
    const int x0 = (int)floorf(ix);
    const int y0 = (int)floorf(iy);
    const float fx = ix - x0, fy = iy - y0;
    const bool left = x0 >= 0 && x0 < W, right = x0 + 1 >= 0 && x0 + 1 < W;
    const bool top = y0 >= 0 && y0 < H, bottom = y0 + 1 >= 0 && y0 + 1 < H;
    const size_t plane = (size_t)H * W;
    const float *src = in + (size_t)n * C * plane;
    float *dst = out + (size_t)n * C * Ho * Wo + (size_t)y * Wo + x;
    for (int c = 0; c < C; ++c, src += plane, dst += (size_t)Ho * Wo) {
        float v = 0.0f;
        if (top && left)
            v += (1.0f - fx) * (1.0f - fy) * src[y0 * W + x0];
        if (top && right)
            v += fx * (1.0f - fy) * src[y0 * W + x0 + 1];
        if (bottom && left)
            v += (1.0f - fx) * fy * src[(y0 + 1) * W + x0];
        if (bottom && right)
            v += fx * fy * src[(y0 + 1) * W + x0 + 1];
        *dst = v;
    }
}
