// shape modelled on: packed YUV 4:2:2 to RGB conversion of video capture pipelines (NPP's nppiYCbCr422ToRGB_8u_C2C3R, libyuv's YUY2ToRGB24Row: each 4-byte Y0 U Y1 V macropixel gives two RGB pixels sharing its chroma, BT.601 full range, saturated to 8 bits), width / 2 macropixels a row (an odd last column dropped), source and destination rows src_pitch and dst_pitch bytes apart, one thread per macropixel on a 2-D grid, written from scratch for kt-tui's corpus
__device__ __forceinline__ unsigned char sat_u8(float v)
{
    return (unsigned char)fminf(fmaxf(v + 0.5f, 0.0f), 255.0f);
}

__global__ void yuy2_to_rgb(const unsigned char *src, int src_pitch, unsigned char *dst, int dst_pitch, int width,
                            int height)
{
    const int mx = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int pairs = width / 2;
    if (mx >= pairs || y >= height)
        return;
    const unsigned char *s = src + (size_t)y * src_pitch + 4 * mx;
    const float u = (float)s[1] - 128.0f;
    const float v = (float)s[3] - 128.0f;
    const float dr = 1.402f * v;
    const float dg = -0.344136f * u - 0.714136f * v;
    const float db = 1.772f * u;
    unsigned char *d = dst + (size_t)y * dst_pitch + 6 * mx;
    for (int k = 0; k < 2; ++k) {
        const float luma = (float)s[2 * k];
        d[3 * k + 0] = sat_u8(luma + dr);
        d[3 * k + 1] = sat_u8(luma + dg);
        d[3 * k + 2] = sat_u8(luma + db);
    }
}
