// shape modelled on: the FM discriminator of software-defined radio (GNU Radio's quadrature_demod_cf, rtl_fm's polar discriminator with its squelch: gain times the phase step arg(x[i + 1] conj(x[i])) between consecutive baseband samples, 0 where the newer sample's power is below squelch), 16-bit interleaved I/Q as an SDR delivers it, nsamples - 1 outputs, a grid-stride loop, written from scratch for kt-tui's corpus
__global__ void fm_demod(const short *iq, int nsamples, float gain, float squelch, float *out)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nsamples - 1; i += gridDim.x * blockDim.x) {
        const float ar = iq[2 * i];
        const float ai = iq[2 * i + 1];
        const float br = iq[2 * i + 2];
        const float bi = iq[2 * i + 3];
        const float re = br * ar + bi * ai;
        const float im = bi * ar - br * ai;
        const float power = br * br + bi * bi;
        out[i] = power < squelch ? 0.0f : gain * atan2f(im, re);
    }
}
