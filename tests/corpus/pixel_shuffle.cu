// shape modelled on: PyTorch pixel_shuffle / ONNX DepthToSpace in CRD mode (NCHW: input channel (c * r + i) * r + j goes to output channel c at row h * r + i, column w * r + j; out channels = in_channels / r^2), one thread per output element, written from scratch for kt-tui's corpus
template <typename scalar_t>
__global__ void pixel_shuffle_kernel(scalar_t *output, const scalar_t *input, int batch, int in_channels, int in_h,
                                     int in_w, int upscale)
{
    const int out_c = in_channels / (upscale * upscale);
    const int out_h = in_h * upscale, out_w = in_w * upscale;
    const long long total = (long long)batch * out_c * out_h * out_w;
    const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total)
        return;
    const int ow = idx % out_w;
    const int oh = (idx / out_w) % out_h;
    const int c = (idx / ((long long)out_w * out_h)) % out_c;
    const int nb = idx / ((long long)out_w * out_h * out_c);
    const int ic = (c * upscale + oh % upscale) * upscale + ow % upscale;
    output[idx] = input[(((long long)nb * in_channels + ic) * in_h + oh / upscale) * in_w + ow / upscale];
}
