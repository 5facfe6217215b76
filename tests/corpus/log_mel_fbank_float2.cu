// shape modelled on: the log-mel filterbank of speech front ends (torchaudio's MelSpectrogram and librosa's melspectrogram: the power |X|^2 of each frame's one-sided spectrum, the n_fft / 2 + 1 complex bins cuFFT's R2C transform writes, weighted by triangular filters whose corners are the FFT bins bin_edges[m], bin_edges[m + 1] and bin_edges[m + 2], then log(max(energy, floor_val))), one thread per (mel band, frame) on a 2-D grid, the spectrogram's frames ld complex bins apart, written from scratch for kt-tui's corpus
__global__ void log_mel(const float2 *spec, int nframes, int n_fft, int ld, const int *bin_edges, int n_mels,
                        float floor_val, float *out)
{
    const int m = blockIdx.x * blockDim.x + threadIdx.x;
    const int f = blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= n_mels || f >= nframes)
        return;
    const int lo = bin_edges[m];
    const int mid = bin_edges[m + 1];
    const int hi = min(bin_edges[m + 2], n_fft / 2 + 1);
    const float2 *frame = spec + (size_t)f * ld;
    float energy = 0.0f;
    for (int k = lo; k < hi; ++k) {
        const float w = k < mid ? (float)(k - lo) / (mid - lo) : (float)(hi - k) / (hi - mid);
        const float2 c = frame[k];
        energy += w * (c.x * c.x + c.y * c.y);
    }
    out[(size_t)f * n_mels + m] = logf(fmaxf(energy, floor_val));
}
