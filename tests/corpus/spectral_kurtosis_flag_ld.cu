// shape modelled on: RFI flagging by the spectral kurtosis estimator (Nita & Gary's SK as radio-astronomy pipelines compute it: bifrost's and the SKA / MeerKAT / HERA real-time flaggers): a thread per frequency channel, m accumulated power spectra in time-major rows ld channels apart, S1 and S2 summed over them, SK = (m + 1) / (m - 1) (m S2 / S1^2 - 1), the channel flagged where SK lies outside [sk_lo, sk_hi], written from scratch for kt-tui's corpus
__global__ void sk_flag(const float *power, int nchan, int m, int ld, float sk_lo, float sk_hi, float *sk,
                        unsigned char *flag)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nchan)
        return;
    float s1 = 0.0f, s2 = 0.0f;
    for (int k = 0; k < m; ++k) {
        const float p = power[(size_t)k * ld + c];
        s1 += p;
        s2 += p * p;
    }
    const float v = (m + 1.0f) / (m - 1.0f) * (m * s2 / (s1 * s1) - 1.0f);
    sk[c] = v;
    flag[c] = v < sk_lo || v > sk_hi;
}
