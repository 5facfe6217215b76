// shape modelled on: PyTorch ATen's depthwise convolution forward (aten/src/ATen/native/cuda/DepthwiseConv2d.cu, conv_depthwise2d_forward_kernel: one thread per NCHW output element, output channel c reading input channel c / depth_multiplier, depth_multiplier = out_channels / in_channels, a runtime kH x kW filter per output channel with stride, zero padding and dilation, plus a bias), written from scratch for kt-tui's corpus
__global__ void conv_depthwise2d_forward(const float *input, float *output, const float *weight, const float *bias,
                                         int batch, int in_channels, int in_h, int in_w, int out_channels, int out_h,
                                         int out_w, int kH, int kW, int stride_h, int stride_w, int pad_h, int pad_w,
                                         int dil_h, int dil_w)
{
    const long long index = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long total = (long long)batch * out_channels * out_h * out_w;
    if (index >= total)
        return;
    const int w = index % out_w;
    const int h = (index / out_w) % out_h;
    const int c = (index / out_w / out_h) % out_channels;
    const int n = index / out_w / out_h / out_channels;
    const int depth_multiplier = out_channels / in_channels;
    const int in_c = c / depth_multiplier;
    const float *in = input + ((size_t)n * in_channels + in_c) * in_h * in_w;
    const float *wt = weight + (size_t)c * kH * kW;
    float acc = bias[c];
    for (int kh = 0; kh < kH; kh++) {
        const int ih = h * stride_h - pad_h + kh * dil_h;
        if (ih < 0 || ih >= in_h)
            continue;
        for (int kw = 0; kw < kW; kw++) {
            const int iw = w * stride_w - pad_w + kw * dil_w;
            if (iw >= 0 && iw < in_w)
                acc += wt[kh * kW + kw] * in[ih * in_w + iw];
        }
    }
    output[index] = acc;
}
