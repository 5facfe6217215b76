// shape modelled on: GC content in sliding windows of genomics tools (bedtools nuc over makewindows -w win -s step, deepTools' computeGCBias: the fraction of G and C among the A, C, G, T of a window, N and other letters ignored), ASCII bases, nwindows = (n - win) / step + 1 windows, one warp per window with a shuffle reduction, written from scratch for kt-tui's corpus
__global__ void gc_windows(const char *seq, int n, int win, int step, float *gc)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    const int nwindows = (n - win) / step + 1;
    if (w >= nwindows)
        return;
    const char *s = seq + (size_t)w * step;
    int g = 0;
    int acgt = 0;
    for (int i = lane; i < win; i += 32) {
        const char c = s[i] & 0xDF;
        g += c == 'G' || c == 'C';
        acgt += c == 'A' || c == 'C' || c == 'G' || c == 'T';
    }
    for (int off = 16; off > 0; off /= 2) {
        g += __shfl_down_sync(0xffffffff, g, off);
        acgt += __shfl_down_sync(0xffffffff, acgt, off);
    }
    if (lane == 0)
        gc[w] = acgt > 0 ? (float)g / acgt : 0.0f;
}
