// shape modelled on: the FIR front end of polyphase filter bank channelizers (CASPER / Bifrost / cuFFT-based PFB spectrometers: spectrum s, channel c = sum over the ntaps taps t of h[t * nchan + c] * x[(s + t) * nchan + c] over complex voltages, before an FFT across the channels; nsamples / nchan - ntaps + 1 spectra), one thread per (channel, spectrum) on a 2-D grid, written from scratch for kt-tui's corpus
__global__ void pfb_fir(const float2 *x, const float *h, float2 *out, int nchan, int ntaps, int nsamples)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int s = blockIdx.y * blockDim.y + threadIdx.y;
    const int nspectra = nsamples / nchan - ntaps + 1;
    if (c >= nchan || s >= nspectra)
        return;
    float2 acc = make_float2(0.0f, 0.0f);
    for (int t = 0; t < ntaps; t++) {
        const float w = h[t * nchan + c];
        const float2 v = x[(size_t)(s + t) * nchan + c];
        acc.x += w * v.x;
        acc.y += w * v.y;
    }
    out[(size_t)s * nchan + c] = acc;
}
