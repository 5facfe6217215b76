// shape modelled on: vLLM's paged attention decode (csrc/attention/attention_kernels.cu, paged_attention_v1: one new query token per sequence attends over its context, whose keys and values lie in fixed-size cache blocks found through the sequence's row of block_tables; caches [num_blocks, num_heads, BLOCK_SIZE, head_size]), here one warp per (sequence, head) with an online softmax, written from scratch for kt-tui's corpus
#define BLOCK_SIZE 16
#define MAX_HEAD_SIZE 128

__global__ void paged_attention_decode(float *out, const float *q, const float *k_cache, const float *v_cache,
                                       const int *block_tables, const int *context_lens, int num_seqs, int num_heads,
                                       int head_size, int max_blocks_per_seq, float scale)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (warp >= num_seqs * num_heads)
        return;
    const int seq = warp / num_heads;
    const int head = warp % num_heads;
    const float *qh = q + ((size_t)seq * num_heads + head) * head_size;
    float *oh = out + ((size_t)seq * num_heads + head) * head_size;
    const int ctx = context_lens[seq];
    float acc[MAX_HEAD_SIZE / 32];
    for (int r = 0; r < MAX_HEAD_SIZE / 32; r++)
        acc[r] = 0.0f;
    float m = -INFINITY, l = 0.0f;
    for (int t = 0; t < ctx; t++) {
        const int block = block_tables[seq * max_blocks_per_seq + t / BLOCK_SIZE];
        const size_t off = (((size_t)block * num_heads + head) * BLOCK_SIZE + t % BLOCK_SIZE) * head_size;
        float dot = 0.0f;
        for (int d = lane; d < head_size; d += 32)
            dot += qh[d] * k_cache[off + d];
        for (int o = 16; o > 0; o >>= 1)
            dot += __shfl_xor_sync(0xffffffff, dot, o);
        const float logit = dot * scale;
        const float m_new = fmaxf(m, logit);
        const float corr = __expf(m - m_new);
        const float p = __expf(logit - m_new);
        l = l * corr + p;
        for (int r = 0; r < MAX_HEAD_SIZE / 32; r++) {
            const int d = lane + 32 * r;
            if (d < head_size)
                acc[r] = acc[r] * corr + p * v_cache[off + d];
        }
        m = m_new;
    }
    const float inv = ctx > 0 ? 1.0f / l : 0.0f;
    for (int r = 0; r < MAX_HEAD_SIZE / 32; r++) {
        const int d = lane + 32 * r;
        if (d < head_size)
            oh[d] = acc[r] * inv;
    }
}
