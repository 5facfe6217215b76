// shape modelled on: radix-2 Cooley-Tukey stage kernels over interleaved real/imaginary float arrays (FFTW-style interleaved layout, one butterfly per thread, the butterfly's first point at 2 * span * (t / span) + (t & (span - 1))), written from scratch for kt-tui's corpus
// one in-place stage over n complex points stored as 2 * n floats (re, im); span: a power of two below n
__global__ void fft_interleaved_stage(float *z, int n, int span)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n / 2)
        return;
    int k = t & (span - 1);
    int i0 = 2 * span * (t / span) + k;
    int i1 = i0 + span;
    float s, c;
    sincospif(-(float)k / span, &s, &c);
    float ar = z[2 * i0], ai = z[2 * i0 + 1];
    float br = z[2 * i1] * c - z[2 * i1 + 1] * s;
    float bi = z[2 * i1] * s + z[2 * i1 + 1] * c;
    z[2 * i0] = ar + br;
    z[2 * i0 + 1] = ai + bi;
    z[2 * i1] = ar - br;
    z[2 * i1 + 1] = ai - bi;
}
