// shape modelled on: the crop-mirror-normalize step of image training pipelines (NVIDIA DALI's CropMirrorNormalize, the preprocessing kernels of TensorRT's samples: an 8-bit interleaved RGB image cropped at (crop_x, crop_y) to out_w x out_h, mirrored left-right when mirror is nonzero, each channel (x - mean[c]) * inv_std[c], written as planar CHW halves, crop pixels outside the image filled with 0), source rows in_pitch bytes apart, a 2-D grid over the crop, written from scratch for kt-tui's corpus
#include <cuda_fp16.h>

__global__ void crop_mirror_normalize(const unsigned char *in, int in_pitch, int in_w, int in_h, int crop_x,
                                      int crop_y, int out_w, int out_h, int mirror, const float *mean,
                                      const float *inv_std, __half *out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= out_w || y >= out_h)
        return;
    const size_t plane = (size_t)out_w * out_h;
    const size_t o = (size_t)y * out_w + x;
    const int sx = crop_x + (mirror ? out_w - 1 - x : x);
    const int sy = crop_y + y;
    if (sx >= in_w || sy >= in_h) {
        for (int c = 0; c < 3; ++c)
            out[c * plane + o] = __float2half(0.0f);
        return;
    }
    const unsigned char *p = in + (size_t)sy * in_pitch + 3 * sx;
    for (int c = 0; c < 3; ++c)
        out[c * plane + o] = __float2half_rn(((float)p[c] - mean[c]) * inv_std[c]);
}
