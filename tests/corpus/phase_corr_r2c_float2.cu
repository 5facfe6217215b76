// shape modelled on: the normalised cross-power spectrum of phase correlation image registration (OpenCV's phaseCorrelate, scikit-image's phase_cross_correlation: R = F conj(G) / |F conj(G)|, then an inverse FFT whose peak is the shift), on the half spectra a batched 2-D real-to-complex FFT leaves (nx / 2 + 1 complex columns for nx real ones), eps keeping empty bins finite, float2 complex, x across the columns, y across the rows, z across the image pairs, written from scratch for kt-tui's corpus
__global__ void cross_power_normalize(const float2 *F, const float2 *G, int nx, int ny, int npairs, float eps,
                                      float2 *R)
{
    const int ncx = nx / 2 + 1;
    const int kx = blockIdx.x * blockDim.x + threadIdx.x;
    const int ky = blockIdx.y * blockDim.y + threadIdx.y;
    const int p = blockIdx.z * blockDim.z + threadIdx.z;
    if (kx >= ncx || ky >= ny || p >= npairs)
        return;
    const size_t i = ((size_t)p * ny + ky) * ncx + kx;
    const float2 f = F[i];
    const float2 g = G[i];
    const float re = f.x * g.x + f.y * g.y;
    const float im = f.y * g.x - f.x * g.y;
    const float mag = sqrtf(re * re + im * im) + eps;
    R[i] = make_float2(re / mag, im / mag);
}
