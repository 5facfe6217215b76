// shape modelled on: the naive DFT kernels people check cuFFT against (X[k] = sum over n of x[n] exp(-2 pi i k n / N), one thread per output bin, the twiddle's angle reduced mod N), over a batch in cuFFT's advanced data layout (signal b's samples istride apart from b * idist, its bins ostride apart from b * odist: here channels interleaved in time), in cuFloatComplex, written from scratch for kt-tui's corpus
#include <cuComplex.h>

__global__ void dft_many(const cuFloatComplex *in, int istride, int idist, cuFloatComplex *out, int ostride, int odist,
                         int nfft, int batch)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (k >= nfft || b >= batch)
        return;
    const cuFloatComplex *x = in + (size_t)b * idist;
    cuFloatComplex acc = make_cuFloatComplex(0.0f, 0.0f);
    for (int n = 0; n < nfft; n++) {
        const int kn = (int)(((long long)k * n) % nfft);
        float s, c;
        sincospif(-2.0f * kn / nfft, &s, &c);
        acc = cuCaddf(acc, cuCmulf(x[(size_t)n * istride], make_cuFloatComplex(c, s)));
    }
    out[(size_t)b * odist + (size_t)k * ostride] = acc;
}
