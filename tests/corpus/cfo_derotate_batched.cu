// shape modelled on: carrier frequency offset correction of OFDM and SDR receivers (srsRAN's and liquid-dsp's NCO mixing: each burst times exp(-j 2 pi f n), f the offset in cycles per sample, the phase starting at phase0), complex float bursts batch_stride samples apart, a 2-D grid over (sample, burst), written from scratch for kt-tui's corpus
__global__ void cfo_derotate(const float2 *in, int nsamples, int nbursts, int batch_stride, const float *freq, float phase0, float2 *out)
{
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (n >= nsamples || b >= nbursts)
        return;
    float s, c;
    sincospif(-2.0f * freq[b] * n + phase0, &s, &c);
    const float2 x = in[(size_t)b * batch_stride + n];
    out[(size_t)b * nsamples + n] = make_float2(x.x * c - x.y * s, x.x * s + x.y * c);
}
