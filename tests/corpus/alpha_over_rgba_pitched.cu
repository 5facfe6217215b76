// shape modelled on: OpenCV's cuda::alphaComp with ALPHA_OVER (as NPP's nppiAlphaComp_8u_AC4R: straight-alpha 8-bit RGBA, fg over bg, out alpha af + ab (1 - af), out colour (cf af + cb ab (1 - af)) / out alpha, rounded; each image's rows its own pitch in bytes), one thread per pixel on a 2-D grid, written from scratch for kt-tui's corpus
__global__ void alpha_over(const unsigned char *fg, int fg_pitch, const unsigned char *bg, int bg_pitch,
                           unsigned char *dst, int dst_pitch, int width, int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const unsigned char *f = fg + (size_t)y * fg_pitch + 4 * x;
    const unsigned char *b = bg + (size_t)y * bg_pitch + 4 * x;
    unsigned char *o = dst + (size_t)y * dst_pitch + 4 * x;
    const int af = f[3];
    const int wb = b[3] * (255 - af);
    const int a255 = af * 255 + wb;
    for (int c = 0; c < 3; ++c)
        o[c] = a255 ? (unsigned char)((f[c] * af * 255 + b[c] * wb + a255 / 2) / a255) : 0;
    o[3] = (unsigned char)((a255 + 127) / 255);
}
