// shape modelled on: the QK^T step of grouped-query attention at decode time (llama.cpp's and vLLM's GQA paths, where query head h reads key head h / (n_head / n_head_kv)): scores[b][h][t] = scale * dot(q[b][h], k[b][kvh][t]) over head_dim, q as half2 pairs (batch x n_head x head_dim halves), the key cache as half2 with tokens ld_k halves apart and heads ctx tokens apart, tokens at or past the sequence's length masked to -inf, a thread per (token, head) on x and y and one block layer per sequence on z, written from scratch for kt-tui's corpus
#include <cuda_fp16.h>

__global__ void gqa_scores(const half2 *q, const half2 *k, const int *seq_len, int batch, int n_head, int n_head_kv,
                           int head_dim, int ctx, int ld_k, float scale, float *scores)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int h = blockIdx.y * blockDim.y + threadIdx.y;
    const int b = blockIdx.z;
    if (t >= ctx || h >= n_head || b >= batch)
        return;
    float *row = scores + ((size_t)b * n_head + h) * ctx;
    if (t >= seq_len[b]) {
        row[t] = -INFINITY;
        return;
    }
    const int kvh = h / (n_head / n_head_kv);
    const half2 *qv = q + ((size_t)b * n_head + h) * (head_dim / 2);
    const half2 *kv = k + (((size_t)b * n_head_kv + kvh) * ctx + t) * (ld_k / 2);
    float sum = 0.0f;
    for (int d = 0; d < head_dim / 2; ++d) {
        const float2 x = __half22float2(qv[d]);
        const float2 y = __half22float2(kv[d]);
        sum += x.x * y.x + x.y * y.y;
    }
    row[t] = scale * sum;
}
