// shape modelled on: BM25 term-at-a-time scoring over an inverted index as GPU search engines run it (Lucene's BM25Similarity; the GPU inverted-index work of Griffin and GENIE): each query term t's postings list, doc_ids and term frequencies from post_off[t] to post_off[t + 1], adds idf[t] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * doc_len[d] / avg_len)) to scores[d] by atomicAdd, one block row per query term (blockIdx.y), a grid-stride loop over the term's postings on x, written from scratch for kt-tui's corpus
__global__ void bm25_score(const int *query, int nq, const int *post_off, const int *doc_ids, const unsigned short *tf,
                           const float *idf, const int *doc_len, float avg_len, float k1, float b, float *scores)
{
    const int qi = blockIdx.y;
    if (qi >= nq)
        return;
    const int t = query[qi];
    const int begin = post_off[t];
    const int end = post_off[t + 1];
    const float w = idf[t] * (k1 + 1.0f);
    const float base = k1 * (1.0f - b);
    const float slope = k1 * b / avg_len;
    for (int p = begin + blockIdx.x * blockDim.x + threadIdx.x; p < end; p += gridDim.x * blockDim.x) {
        const int d = doc_ids[p];
        const float f = tf[p];
        atomicAdd(&scores[d], w * f / (f + base + slope * doc_len[d]));
    }
}
