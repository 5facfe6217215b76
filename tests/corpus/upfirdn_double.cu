// shape modelled on: polyphase upsample-filter-downsample (scipy.signal.upfirdn and the upfirdn1d kernels of cuSignal / CuPy: x upsampled by `up` with zeros between samples, filtered by the ntaps of h, every `down`-th sample kept; the full output has ((in_len - 1) * up + ntaps - 1) / down + 1 samples), a grid-stride loop over the outputs in double precision, written from scratch for kt-tui's corpus
__global__ void upfirdn1d(const double *x, int in_len, const double *h, int ntaps, int up, int down, double *out,
                          int out_len)
{
    for (int n = blockIdx.x * blockDim.x + threadIdx.x; n < out_len; n += blockDim.x * gridDim.x) {
        // output n is sample n * down of the filtered upsampled signal: only taps k with pos - k a
        // multiple of up meet an input sample, (pos - k) / up
        const long long pos = (long long)n * down;
        double acc = 0.0;
        for (int k = (int)(pos % up); k < ntaps && k <= pos; k += up) {
            const long long i = (pos - k) / up;
            if (i < in_len)
                acc += h[k] * x[i];
        }
        out[n] = acc;
    }
}
