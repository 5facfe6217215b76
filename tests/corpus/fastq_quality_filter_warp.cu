// shape modelled on: the read filter of FASTQ preprocessing (fastp's quality and N-base filter, Trimmomatic-style qualified-base limits): a warp per read of len bases, bases and Phred+33 quality characters in rows pitch bytes apart, the lanes striding over the read counting bases of quality below qual_cut and 'N' calls, both counts reduced by shuffles, the read passing when at most max_low_frac of its bases are low and at most max_n are N, written from scratch for kt-tui's corpus
__global__ void filter_reads(const char *seq, const char *qual, int nreads, int len, int pitch, int qual_cut,
                             float max_low_frac, int max_n, unsigned char *pass)
{
    const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (r >= nreads)
        return;
    const char *s = seq + (size_t)r * pitch;
    const char *q = qual + (size_t)r * pitch;
    int low = 0, nbase = 0;
    for (int i = lane; i < len; i += 32) {
        low += (q[i] - 33) < qual_cut;
        nbase += s[i] == 'N';
    }
    for (int off = 16; off > 0; off /= 2) {
        low += __shfl_down_sync(0xffffffffu, low, off);
        nbase += __shfl_down_sync(0xffffffffu, nbase, off);
    }
    if (lane == 0)
        pass[r] = low <= max_low_frac * len && nbase <= max_n;
}
