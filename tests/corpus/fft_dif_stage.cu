// shape modelled on: radix-2 decimation-in-frequency FFT stage kernels (Gentleman-Sande butterflies over cuFloatComplex data, one butterfly per thread, i0 = t + (t / half) * half), written from scratch for kt-tui's corpus
#include <cuComplex.h>
// one in-place stage over n points (a power of two): butterflies `half` points apart (a power of two below n)
__global__ void fft_dif_stage(cuFloatComplex *x, int n, int half)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n / 2) {
        int j = t % half;
        int i0 = t + (t / half) * half;
        int i1 = i0 + half;
        float s, c;
        sincospif(-(float)j / half, &s, &c);
        cuFloatComplex a = x[i0];
        cuFloatComplex b = x[i1];
        x[i0] = cuCaddf(a, b);
        x[i1] = cuCmulf(cuCsubf(a, b), make_cuFloatComplex(c, s));
    }
}
