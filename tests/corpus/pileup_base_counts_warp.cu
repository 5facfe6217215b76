// shape modelled on: per-column base counts of aligned reads over a reference window (the pileup step of samtools mpileup / bcftools call as GPU variant callers run it: Clara Parabricks' and GenomeWorks' cudapileup): a warp per read (blockDim.y reads a block), read r's 2-bit base codes (A, C, G, T = 0 .. 3, N = 4 skipped) in a row of read_pitch bytes, its first len[r] bases aligned from reference position pos[r], the lanes striding over the bases and adding one to counts[(p - win_start) * 4 + base] by atomicAdd for positions p inside [win_start, win_start + win_len), written from scratch for kt-tui's corpus
__global__ void pileup_base_counts(const unsigned char *bases, int read_pitch, const int *pos, const int *len,
                                   int nreads, int win_start, int win_len, unsigned int *counts)
{
    const int r = blockIdx.x * blockDim.y + threadIdx.y;
    if (r >= nreads)
        return;
    const unsigned char *seq = bases + (size_t)r * read_pitch;
    const int start = pos[r] - win_start;
    const int n = len[r];
    for (int i = threadIdx.x; i < n; i += 32) {
        const int p = start + i;
        const unsigned char b = seq[i];
        if (p >= 0 && p < win_len && b < 4)
            atomicAdd(&counts[p * 4 + b], 1u);
    }
}
