// shape modelled on: bicubic upsampling of NCHW planes (PyTorch's upsample_bicubic2d_out_frame, with align_corners): a 3-D grid, x and y over the output pixels and z over the n * c planes, the source point y * (in_h - 1) / (out_h - 1) with align_corners else (y + 0.5) * in_h / out_h - 0.5, the 4 x 4 neighbours clamped to the plane and weighted by Keys' cubic with A = -0.75, written from scratch for kt-tui's corpus
__device__ __forceinline__ void cubic_weights(float t, float w[4])
{
    const float A = -0.75f;
    const float x1 = t + 1.0f, x2 = 1.0f - t, x3 = 2.0f - t;
    w[0] = ((A * x1 - 5.0f * A) * x1 + 8.0f * A) * x1 - 4.0f * A;
    w[1] = ((A + 2.0f) * t - (A + 3.0f)) * t * t + 1.0f;
    w[2] = ((A + 2.0f) * x2 - (A + 3.0f)) * x2 * x2 + 1.0f;
    w[3] = ((A * x3 - 5.0f * A) * x3 + 8.0f * A) * x3 - 4.0f * A;
}

__global__ void upsample_bicubic2d(const float *in, float *out, int planes, int in_h, int in_w, int out_h, int out_w,
                                   int align_corners)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int p = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= out_w || y >= out_h || p >= planes)
        return;
    float sy, sx;
    if (align_corners) {
        sy = out_h > 1 ? y * (float)(in_h - 1) / (out_h - 1) : 0.0f;
        sx = out_w > 1 ? x * (float)(in_w - 1) / (out_w - 1) : 0.0f;
    } else {
        sy = (y + 0.5f) * in_h / out_h - 0.5f;
        sx = (x + 0.5f) * in_w / out_w - 0.5f;
    }
    const int iy = (int)floorf(sy), ix = (int)floorf(sx);
    float wy[4], wx[4];
    cubic_weights(sy - iy, wy);
    cubic_weights(sx - ix, wx);
    const float *plane = in + (size_t)p * in_h * in_w;
    float acc = 0.0f;
    for (int r = 0; r < 4; ++r) {
        const int yy = min(max(iy - 1 + r, 0), in_h - 1);
        float row = 0.0f;
        for (int c = 0; c < 4; ++c) {
            const int xx = min(max(ix - 1 + c, 0), in_w - 1);
            row += wx[c] * plane[(size_t)yy * in_w + xx];
        }
        acc += wy[r] * row;
    }
    out[((size_t)p * out_h + y) * out_w + x] = acc;
}
