// shape modelled on: exact inner-product search of vector search libraries (FAISS IndexFlatIP's brute force: each query's best-scoring key, none (-1) when no key scores above min_score), one block per query, threads over the keys, a shared-memory argmax tree, written from scratch for kt-tui's corpus
#define MAX_THREADS 256
__global__ void best_match(const float *queries, const float *keys, int nq, int nkeys, int dim, float min_score,
                           float *best_score, int *best_idx)
{
    __shared__ float s[MAX_THREADS];
    __shared__ int id[MAX_THREADS];
    const int q = blockIdx.x;
    if (q >= nq)
        return;
    const float *qv = queries + (size_t)q * dim;
    float bs = min_score;
    int bi = -1;
    for (int k = threadIdx.x; k < nkeys; k += blockDim.x) {
        const float *kv = keys + (size_t)k * dim;
        float d = 0.0f;
        for (int t = 0; t < dim; ++t)
            d += qv[t] * kv[t];
        if (d > bs) {
            bs = d;
            bi = k;
        }
    }
    s[threadIdx.x] = bs;
    id[threadIdx.x] = bi;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) {
            const float o = s[threadIdx.x + h];
            const int oi = id[threadIdx.x + h];
            if (o > s[threadIdx.x] || (o == s[threadIdx.x] && oi >= 0 && (id[threadIdx.x] < 0 || oi < id[threadIdx.x]))) {
                s[threadIdx.x] = o;
                id[threadIdx.x] = oi;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        best_score[q] = s[0];
        best_idx[q] = id[0];
    }
}
