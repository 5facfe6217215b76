// shape modelled on: llm.c attention_query_key_kernel1 (causal scores q . k / sqrt(hs) over (B, T, C) tensors, head h in columns h * hs .. h * hs + hs - 1, hs = C / NH, masked keys -INFINITY), as one block per (query, batch x head) with the threads across the keys, written from scratch for kt-tui's corpus
__global__ void attn_scores(float *preatt, const float *q, const float *k, int B, int T, int C, int NH)
{
    int t = blockIdx.x;
    int bh = blockIdx.y;
    if (t >= T || bh >= B * NH)
        return;
    int b = bh / NH, h = bh % NH;
    int hs = C / NH;
    float scale = 1.0f / sqrtf((float)hs);
    const float *query = q + ((size_t)b * T + t) * C + h * hs;
    float *row = preatt + ((size_t)bh * T + t) * T;
    for (int t2 = threadIdx.x; t2 < T; t2 += blockDim.x) {
        if (t2 > t) {
            row[t2] = -INFINITY;
            continue;
        }
        const float *key = k + ((size_t)b * T + t2) * C + h * hs;
        float dot = 0.0f;
        for (int i = 0; i < hs; i++)
            dot += query[i] * key[i];
        row[t2] = dot * scale;
    }
}
