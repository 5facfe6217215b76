// shape modelled on: the transposed 1-D convolution of learned upsamplers (PyTorch's ConvTranspose1d with groups, as vocoders like HiFi-GAN use it: out length (len - 1) * stride + ksize with no padding, weights [cin][cout / groups][ksize]), written as a gather (each output sample sums the inputs that land on it), half storage with float sums, x across the output samples and y across batch x output channels, written from scratch for kt-tui's corpus
#include <cuda_fp16.h>

__global__ void conv_transpose1d(const __half *in, const __half *w, int batch, int cin, int cout, int groups, int len,
                                 int ksize, int stride, __half *out)
{
    const int lout = (len - 1) * stride + ksize;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int bc = blockIdx.y * blockDim.y + threadIdx.y;
    if (t >= lout || bc >= batch * cout)
        return;
    const int b = bc / cout;
    const int co = bc % cout;
    const int cin_g = cin / groups;
    const int cout_g = cout / groups;
    const int g = co / cout_g;
    float acc = 0.0f;
    for (int ci = g * cin_g; ci < (g + 1) * cin_g; ++ci) {
        const __half *x = in + ((size_t)b * cin + ci) * len;
        const __half *wk = w + ((size_t)ci * cout_g + co % cout_g) * ksize;
        for (int k = t % stride; k < ksize; k += stride) {
            const int l = (t - k) / stride;
            if (l >= 0 && l < len)
                acc += __half2float(x[l]) * __half2float(wk[k]);
        }
    }
    out[(size_t)bc * lout + t] = __float2half(acc);
}
