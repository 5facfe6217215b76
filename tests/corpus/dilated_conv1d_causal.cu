// shape modelled on: the causal dilated 1-D convolutions of WaveNet / temporal convolutional networks (nv-wavenet, TCN and fairseq-style conv layers: out[b][o][t] = bias[o] + sum over input channels c and taps k of w[o][c][k] * x[b][c][t - (ksize - 1 - k) * dilation], samples before the start read as zero), one thread per output sample on a 2-D grid of time by batch x output channels, written from scratch for kt-tui's corpus
__global__ void dilated_conv1d_causal(const float *x, const float *w, const float *bias, float *out, int batch,
                                      int in_ch, int out_ch, int length, int ksize, int dilation)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (t >= length || row >= batch * out_ch)
        return;
    const int b = row / out_ch;
    const int o = row % out_ch;
    float acc = bias[o];
    for (int c = 0; c < in_ch; c++) {
        const float *xc = x + ((size_t)b * in_ch + c) * length;
        const float *wc = w + ((size_t)o * in_ch + c) * ksize;
        for (int k = 0; k < ksize; k++) {
            const int src = t - (ksize - 1 - k) * dilation;
            if (src >= 0)
                acc += wc[k] * xc[src];
        }
    }
    out[(size_t)row * length + t] = acc;
}
