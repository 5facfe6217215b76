// shape modelled on: an affine warp of an 8-bit image with bilinear interpolation and a constant border (OpenCV's cv::cuda::warpAffine with INTER_LINEAR and BORDER_CONSTANT, NPP's nppiWarpAffine_8u_C1R): a thread per destination pixel, the inverse 2 x 3 matrix passed as six float scalars, source and destination rows src_step and dst_step bytes apart, source taps outside src_w x src_h reading the border value, the result rounded and saturated, written from scratch for kt-tui's corpus
__device__ inline float tap(const unsigned char *src, int step, int w, int h, int x, int y, float border)
{
    return (x >= 0 && x < w && y >= 0 && y < h) ? (float)src[(size_t)y * step + x] : border;
}

__global__ void warp_affine_u8(const unsigned char *src, int src_step, int src_w, int src_h, unsigned char *dst,
                               int dst_step, int dst_w, int dst_h, float m00, float m01, float m02, float m10,
                               float m11, float m12, float border)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst_w || y >= dst_h)
        return;
    const float sx = m00 * x + m01 * y + m02;
    const float sy = m10 * x + m11 * y + m12;
    const float fx0 = floorf(sx), fy0 = floorf(sy);
    const float fx = sx - fx0, fy = sy - fy0;
    const int x0 = (int)fx0, y0 = (int)fy0;
    const float top = (1.0f - fx) * tap(src, src_step, src_w, src_h, x0, y0, border) +
                      fx * tap(src, src_step, src_w, src_h, x0 + 1, y0, border);
    const float bot = (1.0f - fx) * tap(src, src_step, src_w, src_h, x0, y0 + 1, border) +
                      fx * tap(src, src_step, src_w, src_h, x0 + 1, y0 + 1, border);
    const float v = (1.0f - fy) * top + fy * bot;
    dst[(size_t)y * dst_step + x] = (unsigned char)fminf(fmaxf(rintf(v), 0.0f), 255.0f);
}
