// shape modelled on: bulk Tanimoto similarity of chemical fingerprints (RDKit's BulkTanimotoSimilarity, chemfp's and FPSim2's GPU searches: popcount(a & b) / popcount(a | b) over a query's and each database molecule's nwords-word bit fingerprint, the molecules at or above a cutoff counted), database fingerprints fp_stride words apart, one warp per database fingerprint with a xor-shuffle reduction and the hits counted by atomicAdd, written from scratch for kt-tui's corpus
__global__ void tanimoto(const unsigned int *query, const unsigned int *db, int ndb, int nwords, int fp_stride,
                         float cutoff, float *sim, int *nhits)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (w >= ndb)
        return;
    const unsigned int *fp = db + (size_t)w * fp_stride;
    int both = 0;
    int either = 0;
    for (int i = lane; i < nwords; i += 32) {
        const unsigned int a = query[i];
        const unsigned int b = fp[i];
        both += __popc(a & b);
        either += __popc(a | b);
    }
    for (int off = 16; off > 0; off /= 2) {
        both += __shfl_xor_sync(0xffffffffu, both, off);
        either += __shfl_xor_sync(0xffffffffu, either, off);
    }
    if (lane == 0) {
        const float s = either > 0 ? (float)both / (float)either : 0.0f;
        sim[w] = s;
        if (s >= cutoff)
            atomicAdd(nhits, 1);
    }
}
