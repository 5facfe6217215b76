// shape modelled on: magnitude-squared coherence by Welch's averaging (scipy.signal.coherence and csd, cuSignal's port: over nseg windowed segments' FFTs of two channels, Pxy the mean of X conj(Y), Cxy = |Pxy|^2 / (Pxx Pyy)), the segments' spectra seg_stride bins apart as a batched FFT with a padded output distance leaves them, double complex, one thread per frequency bin looping over the segments, written from scratch for kt-tui's corpus
__global__ void coherence(const double2 *X, const double2 *Y, int nbins, int nseg, int seg_stride, double2 *pxy,
                          double *cxy)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nbins)
        return;
    double sxy_re = 0.0;
    double sxy_im = 0.0;
    double sxx = 0.0;
    double syy = 0.0;
    for (int s = 0; s < nseg; ++s) {
        const double2 x = X[(size_t)s * seg_stride + k];
        const double2 y = Y[(size_t)s * seg_stride + k];
        sxy_re += x.x * y.x + x.y * y.y;
        sxy_im += x.y * y.x - x.x * y.y;
        sxx += x.x * x.x + x.y * x.y;
        syy += y.x * y.x + y.y * y.y;
    }
    pxy[k] = make_double2(sxy_re / nseg, sxy_im / nseg);
    const double den = sxx * syy;
    cxy[k] = den > 0.0 ? (sxy_re * sxy_re + sxy_im * sxy_im) / den : 0.0;
}
