// shape modelled on: grouped 1x1 (pointwise) convolutions of ShuffleNet / ResNeXt in NCHW (PyTorch Conv2d with groups > 1 and a 1x1 kernel: output channel co is in group co / (C_out / groups) and reads that group's C_in / groups input channels; weight is C_out x (C_in / groups)), one thread per output pixel and channel, one batch item per blockIdx.z, written from scratch for kt-tui's corpus
__global__ void conv1x1_grouped(const float *input, const float *weight, const float *bias, float *output, int batch,
                                int in_channels, int out_channels, int groups, int spatial)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int co = blockIdx.y * blockDim.y + threadIdx.y;
    int n = blockIdx.z;
    if (p >= spatial || co >= out_channels || n >= batch)
        return;
    int cin_per_group = in_channels / groups;
    int cout_per_group = out_channels / groups;
    int g = co / cout_per_group;
    const float *in = input + ((size_t)n * in_channels + g * cin_per_group) * spatial + p;
    const float *w = weight + (size_t)co * cin_per_group;
    float acc = bias[co];
    for (int ci = 0; ci < cin_per_group; ci++)
        acc += w[ci] * in[(size_t)ci * spatial];
    output[((size_t)n * out_channels + co) * spatial + p] = acc;
}
