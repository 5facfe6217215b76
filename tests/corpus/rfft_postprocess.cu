// shape modelled on: the last step of a real-to-complex FFT computed as a half-length complex FFT (as cuFFT-like and FFTW-style r2c codes do: z = the n / 2-point FFT of the even and odd samples packed as complex, X[k] = (z[k] + conj(z[n/2 - k])) / 2 - i W^k (z[k] - conj(z[n/2 - k])) / 2 with W = exp(-2 pi i / n), for the n / 2 + 1 bins k = 0 .. n / 2), batched with signals idist and spectra odist elements apart, in double2, written from scratch for kt-tui's corpus
__global__ void r2c_postprocess(const double2 *z, int idist, double2 *X, int odist, int n, int batch)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    const int half = n / 2;
    if (k > half || b >= batch)
        return;
    const double2 *zb = z + (size_t)b * idist;
    const double2 a = zb[k == half ? 0 : k];
    const double2 c = zb[k == 0 ? 0 : half - k];
    // even part (a + conj(c)) / 2, odd part -i (a - conj(c)) / 2
    const double er = 0.5 * (a.x + c.x);
    const double ei = 0.5 * (a.y - c.y);
    const double orr = 0.5 * (a.y + c.y);
    const double oi = -0.5 * (a.x - c.x);
    double s, co;
    sincospi(-2.0 * k / n, &s, &co);
    X[(size_t)b * odist + k] = make_double2(er + co * orr - s * oi, ei + co * oi + s * orr);
}
