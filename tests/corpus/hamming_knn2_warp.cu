// shape modelled on: OpenCV's cuda::DescriptorMatcher (the brute-force matcher) knnMatch with k = 2 under NORM_HAMMING for binary descriptors (ORB's 256 bits as WORDS 64-bit words): one warp per query descriptor, its lanes striding over the train descriptors and keeping their best and second-best (distance, index), merged across the warp by shuffles so lane 0 writes both train indices and both distances for Lowe's ratio test, written from scratch for kt-tui's corpus
#define WORDS 4
#define NONE 0x7fffffff

__device__ bool before(int da, int ia, int db, int ib)
{
    return da < db || (da == db && ia < ib);
}

__global__ void knn2_hamming(const unsigned long long *query, const unsigned long long *train, int nquery, int ntrain,
                             int2 *best_idx, int2 *best_dist)
{
    const int q = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (q >= nquery)
        return;
    unsigned long long desc[WORDS];
    for (int w = 0; w < WORDS; ++w)
        desc[w] = query[(size_t)q * WORDS + w];
    int d1 = NONE, i1 = NONE, d2 = NONE, i2 = NONE;
    for (int t = lane; t < ntrain; t += 32) {
        int d = 0;
        for (int w = 0; w < WORDS; ++w)
            d += __popcll(desc[w] ^ train[(size_t)t * WORDS + w]);
        if (d < d1) {
            d2 = d1;
            i2 = i1;
            d1 = d;
            i1 = t;
        } else if (d < d2) {
            d2 = d;
            i2 = t;
        }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        const int od1 = __shfl_down_sync(0xffffffff, d1, offset);
        const int oi1 = __shfl_down_sync(0xffffffff, i1, offset);
        const int od2 = __shfl_down_sync(0xffffffff, d2, offset);
        const int oi2 = __shfl_down_sync(0xffffffff, i2, offset);
        if (before(od1, oi1, d1, i1)) {
            if (before(d1, i1, od2, oi2)) {
                d2 = d1;
                i2 = i1;
            } else {
                d2 = od2;
                i2 = oi2;
            }
            d1 = od1;
            i1 = oi1;
        } else if (before(od1, oi1, d2, i2)) {
            d2 = od1;
            i2 = oi1;
        }
    }
    if (lane == 0) {
        best_idx[q] = make_int2(i1, i2);
        best_dist[q] = make_int2(d1, d2);
    }
}
