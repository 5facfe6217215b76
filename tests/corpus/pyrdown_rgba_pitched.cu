// shape modelled on: OpenCV's cuda::pyrDown on 8-bit RGBA (CV_8UC4 as uchar4: the 5 x 5 Gaussian of weights (1 4 6 4 1) x (1 4 6 4 1) / 256 around source pixel (2x, 2y), BORDER_REFLECT_101 at the edges, rounded; the destination about half the source each way, each image's rows its own pitch in bytes), one thread per destination pixel on a 2-D grid, written from scratch for kt-tui's corpus
__device__ int reflect101(int i, int n)
{
    i = i < 0 ? -i : i;
    return i >= n ? 2 * n - 2 - i : i;
}

__global__ void pyr_down_rgba(const uchar4 *src, size_t src_pitch, int src_w, int src_h, uchar4 *dst, size_t dst_pitch,
                              int dst_w, int dst_h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst_w || y >= dst_h)
        return;
    const int taps[5] = {1, 4, 6, 4, 1};
    int r = 0, g = 0, b = 0, a = 0;
    for (int dy = -2; dy <= 2; ++dy) {
        const int sy = reflect101(2 * y + dy, src_h);
        const uchar4 *row = (const uchar4 *)((const unsigned char *)src + sy * src_pitch);
        for (int dx = -2; dx <= 2; ++dx) {
            const uchar4 p = row[reflect101(2 * x + dx, src_w)];
            const int w = taps[dy + 2] * taps[dx + 2];
            r += w * p.x;
            g += w * p.y;
            b += w * p.z;
            a += w * p.w;
        }
    }
    uchar4 *out = (uchar4 *)((unsigned char *)dst + y * dst_pitch);
    out[x] = make_uchar4((r + 128) >> 8, (g + 128) >> 8, (b + 128) >> 8, (a + 128) >> 8);
}
