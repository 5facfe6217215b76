// shape modelled on: bilinear demosaicing of an RGGB Bayer sensor image (OpenCV's cv::cuda::demosaicing with COLOR_BayerRG2BGR / cv::cvtColor's bilinear Bayer path, NPP's nppiCFAToRGB_8u_C1C3R): a thread per pixel, the block's pixels and a one-pixel apron staged in a static shared tile of TILE_W x TILE_H (#defines, the most threads a block may have) plus 2, byte rows src_step apart, neighbours mirrored at the border (reflect-101 keeps the Bayer parity), the two missing colours averaged from the cross or diagonal neighbours, uchar4 (r, g, b, 255) out with rows dst_pitch uchar4s apart, written from scratch for kt-tui's corpus
#define TILE_W 32
#define TILE_H 16

__device__ int reflect101(int v, int n)
{
    if (v < 0)
        return -v;
    if (v >= n)
        return 2 * n - 2 - v;
    return v;
}

__global__ void demosaic_rggb(const unsigned char *src, int width, int height, int src_step, uchar4 *dst,
                              int dst_pitch)
{
    __shared__ float tile[TILE_H + 2][TILE_W + 2];
    const int x0 = blockIdx.x * blockDim.x;
    const int y0 = blockIdx.y * blockDim.y;
    for (int ty = threadIdx.y; ty < blockDim.y + 2; ty += blockDim.y)
        for (int tx = threadIdx.x; tx < blockDim.x + 2; tx += blockDim.x) {
            const int gx = reflect101(min(x0 + tx - 1, width), width);
            const int gy = reflect101(min(y0 + ty - 1, height), height);
            tile[ty][tx] = (float)src[(size_t)gy * src_step + gx];
        }
    __syncthreads();
    const int x = x0 + threadIdx.x;
    const int y = y0 + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int cx = threadIdx.x + 1, cy = threadIdx.y + 1;
    const float c = tile[cy][cx];
    const float cross = 0.25f * (tile[cy][cx - 1] + tile[cy][cx + 1] + tile[cy - 1][cx] + tile[cy + 1][cx]);
    const float diag =
        0.25f * (tile[cy - 1][cx - 1] + tile[cy - 1][cx + 1] + tile[cy + 1][cx - 1] + tile[cy + 1][cx + 1]);
    const float horiz = 0.5f * (tile[cy][cx - 1] + tile[cy][cx + 1]);
    const float vert = 0.5f * (tile[cy - 1][cx] + tile[cy + 1][cx]);
    float r, g, b;
    if ((y & 1) == 0 && (x & 1) == 0) {
        r = c; g = cross; b = diag;
    } else if ((y & 1) == 1 && (x & 1) == 1) {
        r = diag; g = cross; b = c;
    } else if ((y & 1) == 0) {
        r = horiz; g = c; b = vert;
    } else {
        r = vert; g = c; b = horiz;
    }
    dst[(size_t)y * dst_pitch + x] = make_uchar4((unsigned char)(r + 0.5f), (unsigned char)(g + 0.5f),
                                                 (unsigned char)(b + 0.5f), 255);
}
