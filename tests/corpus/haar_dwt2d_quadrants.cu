// shape modelled on: one level of the orthonormal 2-D Haar wavelet transform (PyWavelets' dwt2 with "haar", the Mallat layout of JPEG 2000 codecs and of NVIDIA's NPP / cuDWT-style GPU wavelet codes): a thread per output coefficient over the (width / 2) x (height / 2) half-size grid, a 2 x 2 input block from rows ld floats apart, the LL, HL, LH and HH subbands written to the four quadrants of an output whose rows are dld floats apart, written from scratch for kt-tui's corpus
__global__ void haar_dwt2d(const float *src, int ld, int width, int height, float *dst, int dld)
{
    const int hw = width / 2;
    const int hh = height / 2;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= hw || y >= hh)
        return;
    const float *p = src + (size_t)(2 * y) * ld + 2 * x;
    const float a = p[0], b = p[1], c = p[ld], d = p[ld + 1];
    dst[(size_t)y * dld + x] = 0.5f * (a + b + c + d);
    dst[(size_t)y * dld + x + hw] = 0.5f * (a - b + c - d);
    dst[(size_t)(y + hh) * dld + x] = 0.5f * (a + b - c - d);
    dst[(size_t)(y + hh) * dld + x + hw] = 0.5f * (a - b - c + d);
}
