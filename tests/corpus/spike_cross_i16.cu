// shape modelled on: threshold spike detection of extracellular recordings (SpikeInterface's detect_peaks by channel, the threshold stage of Kilosort and SpyKING CIRCUS: a spike where a channel's signal falls below -thr[c] from at or above it, thr a multiple of the channel's noise level, its trough the minimum over the next window samples), 16-bit samples interleaved over nchan channels as acquisition systems write them (sample t of channel c at t * nchan + c), a 2-D grid over (sample, channel) from the second sample on, spikes counted per channel by atomicAdd, written from scratch for kt-tui's corpus
__global__ void spike_cross(const short *x, int nsamples, int nchan, const short *thr, int window, short *trough,
                            unsigned int *counts)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x + 1;
    const int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (t >= nsamples || c >= nchan)
        return;
    const int level = -(int)thr[c];
    const int cur = x[(size_t)t * nchan + c];
    const int prev = x[(size_t)(t - 1) * nchan + c];
    if (cur < level && prev >= level) {
        int low = cur;
        for (int k = 1; k < window && t + k < nsamples; ++k)
            low = min(low, (int)x[(size_t)(t + k) * nchan + c]);
        trough[(size_t)t * nchan + c] = (short)low;
        atomicAdd(&counts[c], 1u);
    } else {
        trough[(size_t)t * nchan + c] = 0;
    }
}
