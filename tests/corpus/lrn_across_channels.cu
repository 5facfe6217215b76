// shape modelled on: Caffe's cross-channel local response normalisation (src/caffe/layers/lrn_layer.cu, LRNFillScale then LRNComputeOutput: one thread per (n, h, w) walks the channels, which lie height * width apart, keeping a running sum of squares over a window of `size` channels centred on each; scale = k + alpha / size * sum, top = bottom * scale^-beta), both steps in one kernel, written from scratch for kt-tui's corpus
__global__ void lrn_across_channels(const float *bottom, int num, int channels, int height, int width, int size,
                                    float alpha_over_size, float k, float negative_beta, float *scale, float *top)
{
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= num * height * width)
        return;
    const int w = index % width;
    const int h = (index / width) % height;
    const int n = index / width / height;
    const int step = height * width;
    const size_t offset = (size_t)n * channels * step + h * width + w;
    const float *in = bottom + offset;
    float *sc = scale + offset;
    float *out = top + offset;
    const int pre_pad = (size - 1) / 2;
    const int post_pad = size - pre_pad - 1;
    float accum = 0.0f;
    int head = 0;
    while (head < post_pad && head < channels) {
        accum += in[head * step] * in[head * step];
        ++head;
    }
    while (head < channels) {
        accum += in[head * step] * in[head * step];
        if (head - size >= 0)
            accum -= in[(head - size) * step] * in[(head - size) * step];
        sc[(head - post_pad) * step] = k + accum * alpha_over_size;
        ++head;
    }
    while (head < channels + post_pad) {
        if (head - size >= 0)
            accum -= in[(head - size) * step] * in[(head - size) * step];
        sc[(head - post_pad) * step] = k + accum * alpha_over_size;
        ++head;
    }
    for (int c = 0; c < channels; c++)
        out[c * step] = in[c * step] * powf(sc[c * step], negative_beta);
}
