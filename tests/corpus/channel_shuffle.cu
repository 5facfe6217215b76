// shape modelled on: ShuffleNet's channel shuffle as PyTorch computes it (aten/src/ATen/native/ChannelShuffle.cpp: an N x C x HxW tensor viewed as N x groups x C / groups x HxW, the two channel axes transposed), here one thread per output element on half tensors moved as their 16-bit patterns, written from scratch for kt-tui's corpus
__global__ void channel_shuffle_kernel(unsigned short *out, const unsigned short *in, int N, int C, int HxW, int groups)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t total = (size_t)N * C * HxW;
    if (i >= total)
        return;
    const int channels_per_group = C / groups;
    const int hw = i % HxW;
    const int c_out = (i / HxW) % C;
    const int n = i / ((size_t)HxW * C);
    // output channel c_out = k * groups + g holds input channel g * channels_per_group + k
    const int g = c_out % groups;
    const int k = c_out / groups;
    const int c_in = g * channels_per_group + k;
    out[i] = in[((size_t)n * C + c_in) * HxW + hw];
}
