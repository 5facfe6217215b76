// shape modelled on: the overlap-add of an inverse STFT (torch.istft / librosa.istft: frame f's n_fft windowed samples added at f * hop, the sum divided by the summed squared window), one thread per output sample gathering the frames that cover it, templated on the sample type, written from scratch for kt-tui's corpus
template <typename T>
__global__ void overlap_add(const T *frames, const T *window, int nframes, int n_fft, int hop, T *out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int len = (nframes - 1) * hop + n_fft;
    if (t >= len)
        return;
    int f = t / hop;
    if (f > nframes - 1)
        f = nframes - 1;
    T acc = 0;
    T wsum = 0;
    for (; f >= 0 && t - f * hop < n_fft; --f) {
        const int k = t - f * hop;
        const T w = window[k];
        acc += frames[(size_t)f * n_fft + k] * w;
        wsum += w * w;
    }
    out[t] = wsum > (T)1e-11 ? acc / wsum : (T)0;
}
