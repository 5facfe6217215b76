// shape modelled on: the NVIDIA Video Codec SDK samples' NV12 to BGRA32 conversion (Utils/ColorSpace.cu: one thread per 2 x 2 quad of pixels sharing one chroma sample; the luma plane's rows nv12_pitch bytes apart with the interleaved half-resolution UV plane after its height rows; BT.601 video range; packed 32-bit BGRA output rows bgra_pitch pixels apart), written from scratch for kt-tui's corpus
__device__ __forceinline__ unsigned int clamp_u8(float v)
{
    return (unsigned int)fminf(fmaxf(v, 0.0f), 255.0f);
}

__device__ __forceinline__ unsigned int yuv_to_bgra(float y, float u, float v)
{
    y = 1.1644f * (y - 16.0f);
    u -= 128.0f;
    v -= 128.0f;
    const float r = y + 1.5960f * v;
    const float g = y - 0.3918f * u - 0.8130f * v;
    const float b = y + 2.0172f * u;
    return clamp_u8(b) | (clamp_u8(g) << 8) | (clamp_u8(r) << 16) | 0xff000000u;
}

__global__ void nv12_to_bgra32(const unsigned char *nv12, int nv12_pitch, unsigned int *bgra, int bgra_pitch, int width,
                               int height)
{
    const int x = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int y = 2 * (blockIdx.y * blockDim.y + threadIdx.y);
    if (x + 1 >= width || y + 1 >= height)
        return;
    const unsigned char *luma = nv12 + (size_t)y * nv12_pitch + x;
    const unsigned char *chroma = nv12 + (size_t)(height + y / 2) * nv12_pitch + x;
    const float u = chroma[0];
    const float v = chroma[1];
    unsigned int *out = bgra + (size_t)y * bgra_pitch + x;
    out[0] = yuv_to_bgra(luma[0], u, v);
    out[1] = yuv_to_bgra(luma[1], u, v);
    out[bgra_pitch] = yuv_to_bgra(luma[nv12_pitch], u, v);
    out[bgra_pitch + 1] = yuv_to_bgra(luma[nv12_pitch + 1], u, v);
}
