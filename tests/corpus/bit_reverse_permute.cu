// shape modelled on: the bit-reversal reordering of a radix-2 FFT (cuFFT-style batched transforms, e.g. the reorder step of VkFFT-like and textbook Cooley-Tukey GPU codes: element i of each length-n transform moves to the position whose log2(n) bits are i's reversed, and an inverse transform's 1/n scale applied on the way), batched double2, written from scratch for kt-tui's corpus
__global__ void bit_reverse_permute(double2 *out, const double2 *in, int n, int batch, double scale)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || b >= batch)
        return;
    const int bits = 31 - __clz(n);
    const int j = __brev((unsigned int)i) >> (32 - bits);
    const double2 v = in[(size_t)b * n + i];
    out[(size_t)b * n + j] = make_double2(v.x * scale, v.y * scale);
}
