// shape modelled on: FAISS's binary flat index range search (IndexBinaryFlat: codes of nwords 32-bit words, the Hamming distance the popcount of q ^ d over the words, a database code within radius a hit), one thread per (database code, query) on a 2-D grid writing the distance matrix, hits counted per query by atomicAdd, written from scratch for kt-tui's corpus
__global__ void hamming_range(const unsigned int *queries, const unsigned int *db, int nq, int ndb, int nwords, int radius,
                              unsigned short *dist, int *hits)
{
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    const int q = blockIdx.y * blockDim.y + threadIdx.y;
    if (d >= ndb || q >= nq)
        return;
    const unsigned int *a = queries + (size_t)q * nwords;
    const unsigned int *b = db + (size_t)d * nwords;
    int h = 0;
    for (int w = 0; w < nwords; ++w)
        h += __popc(a[w] ^ b[w]);
    dist[(size_t)q * ndb + d] = (unsigned short)h;
    if (h <= radius)
        atomicAdd(&hits[q], 1);
}
