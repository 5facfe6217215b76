// shape modelled on: the band energies of a batch of spectra (the filterbank-energy stage of speech front ends such as Kaldi's, the spectral power stage of AstroAccelerate: each frame's nbins complex FFT bins, frames frame_stride bins apart, |X|^2 averaged over nbands equal bands of nbins / nbands bins, the remainder bins dropped, in dB), one block per frame, threads over the bands, written from scratch for kt-tui's corpus
#include <cuComplex.h>

__global__ void band_power(const cuComplex *spec, int nframes, int nbins, int frame_stride, int nbands, float *bands)
{
    const int f = blockIdx.x;
    if (f >= nframes)
        return;
    const int width = nbins / nbands;
    const cuComplex *s = spec + (size_t)f * frame_stride;
    for (int b = threadIdx.x; b < nbands; b += blockDim.x) {
        float p = 0.0f;
        for (int k = b * width; k < (b + 1) * width; ++k) {
            const float re = cuCrealf(s[k]);
            const float im = cuCimagf(s[k]);
            p += re * re + im * im;
        }
        bands[(size_t)f * nbands + b] = 10.0f * log10f(p / width + 1e-12f);
    }
}
