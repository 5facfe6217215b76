// shape modelled on: polyphase decimation filters (keep every `decim`-th output of an FIR filter, e.g. GNU Radio / cuSignal decimate), written from scratch for kt-tui's corpus
__global__ void decimate_fir(const float *in, const float *taps, float *out, int n_in, int ntaps, int decim)
{
    int n_out = (n_in - ntaps) / decim + 1;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_out) {
        float acc = 0.0f;
        for (int t = 0; t < ntaps; t++)
            acc += taps[t] * in[i * decim + t];
        out[i] = acc;
    }
}
