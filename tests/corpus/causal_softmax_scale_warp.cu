// shape modelled on: the masked softmax of unfused attention with a causal mask and a scale (Megatron-LM's scaled_upper_triang_masked_softmax, PyTorch's _masked_softmax / F.scaled_dot_product_attention math path, FasterTransformer's masked softmax with a KV cache): a warp per score row of [bh, q_len, k_len], query q seeing keys 0 .. q + k_len - q_len (the cached keys before the new queries), max and sum by shuffles, masked keys written as 0, written from scratch for kt-tui's corpus
__global__ void causal_softmax(const float *scores, int bh, int q_len, int k_len, float scale, float *probs)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= bh * q_len)
        return;
    const int q = row % q_len;
    const int last = q + k_len - q_len;
    const float *s = scores + (size_t)row * k_len;
    float *p = probs + (size_t)row * k_len;
    float m = -INFINITY;
    for (int j = threadIdx.x; j <= last; j += 32)
        m = fmaxf(m, s[j] * scale);
    for (int off = 16; off > 0; off /= 2)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float sum = 0.0f;
    for (int j = threadIdx.x; j <= last; j += 32)
        sum += __expf(s[j] * scale - m);
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, off);
    const float inv = 1.0f / sum;
    for (int j = threadIdx.x; j < k_len; j += 32)
        p[j] = j <= last ? __expf(s[j] * scale - m) * inv : 0.0f;
}
