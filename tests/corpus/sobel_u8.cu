// shape modelled on: NPP nppiFilterSobel and OpenCV cuda::Sobel on 8-bit images with row steps in bytes (|gx| + |gy| of the 3x3 Sobel pair, scaled by 1/8 to fit a byte; the one-pixel border left alone), written from scratch for kt-tui's corpus
__global__ void sobel_u8(const unsigned char *src, int src_step, unsigned char *dst, int dst_step, int width,
                         int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1)
        return;
    const unsigned char *up = src + (y - 1) * src_step;
    const unsigned char *mid = src + y * src_step;
    const unsigned char *down = src + (y + 1) * src_step;
    int gx = (up[x + 1] + 2 * mid[x + 1] + down[x + 1]) - (up[x - 1] + 2 * mid[x - 1] + down[x - 1]);
    int gy = (down[x - 1] + 2 * down[x] + down[x + 1]) - (up[x - 1] + 2 * up[x] + up[x + 1]);
    dst[y * dst_step + x] = (unsigned char)((abs(gx) + abs(gy)) >> 3);
}
