// shape modelled on: direct-form FIR filter kernels (scipy.signal.lfilter with a = [1], cuSignal's naive firfilter: y[i] = sum over the taps of h[k] * x[i - k], samples before the start taken as zero), written from scratch for kt-tui's corpus
__global__ void fir_causal(float *y, const float *x, const float *h, int n, int ntaps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
    for (int k = 0; k < ntaps; k++)
        if (i - k >= 0)
            acc += h[k] * x[i - k];
    y[i] = acc;
}
