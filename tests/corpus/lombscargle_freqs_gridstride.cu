// shape modelled on: the Lomb-Scargle periodogram of unevenly sampled data (cuSignal's lombscargle, SciPy's signal.lombscargle, astropy's LombScargle): a grid-stride loop over the angular frequencies, for each the time shift tau = atan2(sum sin 2wt, sum cos 2wt) / 2w and the power (sum y cos)^2 / sum cos^2 + (sum y sin)^2 / sum sin^2 over the samples at w (t - tau), halved, written from scratch for kt-tui's corpus
__global__ void lombscargle(const float *t, const float *y, int nsamples, const float *freqs, int nfreqs, float *pgram)
{
    for (int f = blockIdx.x * blockDim.x + threadIdx.x; f < nfreqs; f += gridDim.x * blockDim.x) {
        const float w = freqs[f];
        float s2 = 0.0f, c2 = 0.0f;
        for (int i = 0; i < nsamples; ++i) {
            float s, c;
            sincosf(2.0f * w * t[i], &s, &c);
            s2 += s;
            c2 += c;
        }
        const float tau = atan2f(s2, c2) / (2.0f * w);
        float yc = 0.0f, ys = 0.0f, cc = 0.0f, ss = 0.0f;
        for (int i = 0; i < nsamples; ++i) {
            float s, c;
            sincosf(w * (t[i] - tau), &s, &c);
            yc += y[i] * c;
            ys += y[i] * s;
            cc += c * c;
            ss += s * s;
        }
        pgram[f] = 0.5f * (yc * yc / cc + ys * ys / ss);
    }
}
