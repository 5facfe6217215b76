// shape modelled on: a cascade of second-order IIR sections (biquads) in transposed direct form II as CMSIS-DSP's arm_biquad_cascade_df2T_f32 and scipy.signal.sosfilt run it, over many channels at once: a thread per channel running through nframes samples in order, the samples interleaved (frame t's channel c at x[t * nch + c]), nsec sections whose coefficients (b0, b1, b2, a1, a2) every channel shares, each channel's two state values per section read first and written back last so that the next buffer continues the stream, written from scratch for kt-tui's corpus
#define MAX_SECTIONS 8

__global__ void biquad_cascade(const float *x, float *y, int nch, int nframes, const float *coef, int nsec,
                               float *state)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nch)
        return;
    float z1[MAX_SECTIONS], z2[MAX_SECTIONS];
    for (int s = 0; s < nsec; ++s) {
        z1[s] = state[((size_t)c * nsec + s) * 2];
        z2[s] = state[((size_t)c * nsec + s) * 2 + 1];
    }
    for (int t = 0; t < nframes; ++t) {
        float v = x[(size_t)t * nch + c];
        for (int s = 0; s < nsec; ++s) {
            const float *k = coef + 5 * s;
            const float out = k[0] * v + z1[s];
            z1[s] = k[1] * v - k[3] * out + z2[s];
            z2[s] = k[2] * v - k[4] * out;
            v = out;
        }
        y[(size_t)t * nch + c] = v;
    }
    for (int s = 0; s < nsec; ++s) {
        state[((size_t)c * nsec + s) * 2] = z1[s];
        state[((size_t)c * nsec + s) * 2 + 1] = z2[s];
    }
}
