// shape modelled on: the depthwise 3 x 3 convolution of MobileNet-style networks on NHWC half tensors (TensorRT's and cuDNN's NHWC depthwise kernels: channel pairs as half2 so one thread computes two channels; filters laid out [3][3][C]; zero padding; output OH = (H + 2 * pad - 3) / stride + 1 rows and likewise OW columns; bias and ReLU6 fused, accumulated in float), a thread per channel pair on x, per output column on y and per (image, output row) on z, written from scratch for kt-tui's corpus
#include <cuda_fp16.h>

__global__ void dwconv3x3_nhwc(const __half2 *in, const __half2 *filt, const __half2 *bias, int N, int H, int W, int C,
                               int stride, int pad, int OH, int OW, __half2 *out)
{
    const int c2 = blockIdx.x * blockDim.x + threadIdx.x;
    const int ox = blockIdx.y * blockDim.y + threadIdx.y;
    const int nz = blockIdx.z * blockDim.z + threadIdx.z;
    const int C2 = C / 2;
    if (c2 >= C2 || ox >= OW || nz >= N * OH)
        return;
    const int n = nz / OH;
    const int oy = nz % OH;
    float2 acc = __half22float2(bias[c2]);
    for (int ky = 0; ky < 3; ++ky) {
        const int iy = oy * stride - pad + ky;
        if (iy < 0 || iy >= H)
            continue;
        for (int kx = 0; kx < 3; ++kx) {
            const int ix = ox * stride - pad + kx;
            if (ix < 0 || ix >= W)
                continue;
            const float2 v = __half22float2(in[(((size_t)n * H + iy) * W + ix) * C2 + c2]);
            const float2 w = __half22float2(filt[(ky * 3 + kx) * C2 + c2]);
            acc.x += v.x * w.x;
            acc.y += v.y * w.y;
        }
    }
    acc.x = fminf(fmaxf(acc.x, 0.0f), 6.0f);
    acc.y = fminf(fmaxf(acc.y, 0.0f), 6.0f);
    out[(((size_t)n * OH + oy) * OW + ox) * C2 + c2] = __floats2half2_rn(acc.x, acc.y);
}
