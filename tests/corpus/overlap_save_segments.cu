// shape modelled on: the segmenting step of overlap-save FFT convolution (scipy.signal.oaconvolve's and cuSignal's block convolution, cuFFT-based FIR filtering of long signals, GNU Radio's fft_filter): nseg segments of nfft = hop + ntaps - 1 samples each, segment s starting hop samples after the one before in a signal already padded with ntaps - 1 leading samples, copied out as complex samples (imaginary part 0) for a batched complex FFT, a 2-D grid with x across a segment and y across the segments, written from scratch for kt-tui's corpus
__global__ void overlap_save_segments(const float *x, int hop, int ntaps, int nseg, float2 *seg)
{
    const int nfft = hop + ntaps - 1;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int s = blockIdx.y * blockDim.y + threadIdx.y;
    if (k >= nfft || s >= nseg)
        return;
    seg[(size_t)s * nfft + k] = make_float2(x[(size_t)s * hop + k], 0.0f);
}
