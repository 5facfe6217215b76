// shape modelled on: the framing and windowing step of a batched short-time Fourier transform (torch.stft / librosa.util.frame before a complex FFT: frame f of signal b is the nfft samples from f * hop, times a window of win_length samples centred in the frame and zero outside it, as complex values), the signals `batch_stride` samples apart, written from scratch for kt-tui's corpus
__global__ void stft_frames(const float *signal, long long batch_stride, int length, const float *window,
                            int win_length, int nfft, int hop, float2 *frames, int batch)
{
    const int nframes = (length - nfft) / hop + 1;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (k >= nfft || row >= batch * nframes)
        return;
    const int b = row / nframes;
    const int f = row - b * nframes;
    // the window is padded with zeros on both sides up to nfft
    const int w = k - (nfft - win_length) / 2;
    const float g = (w >= 0 && w < win_length) ? window[w] : 0.0f;
    const float s = signal[b * batch_stride + (long long)f * hop + k];
    frames[(size_t)row * nfft + k] = make_float2(s * g, 0.0f);
}
