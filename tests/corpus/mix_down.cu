// shape modelled on: GNU Radio's rotator and cuSignal channelizer mixers (each channel's complex baseband samples times exp(i 2 pi f n) at a start phase, the cycles reduced in double before the sine; channels `stride` samples apart), written from scratch for kt-tui's corpus
// freq in cycles per sample, phase0 in half turns; out keeps in's layout
__global__ void mix_down(float2 *out, const float2 *in, const float *freq, const float *phase0, int nsamples,
                         int nchannels, int stride)
{
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    int ch = blockIdx.y * blockDim.y + threadIdx.y;
    if (n >= nsamples || ch >= nchannels)
        return;
    double cycles = (double)freq[ch] * n;
    float s, c;
    sincospif((float)(2.0 * (cycles - rint(cycles))) + phase0[ch], &s, &c);
    size_t at = (size_t)ch * stride + n;
    float2 v = in[at];
    out[at] = make_float2(v.x * c - v.y * s, v.x * s + v.y * c);
}
