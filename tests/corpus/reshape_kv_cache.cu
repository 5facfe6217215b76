// shape modelled on: vLLM's reshape_and_cache kernel (csrc/cache_kernels.cu: one block per token, its threads over num_heads * head_size; slot_mapping[token] names a cache block and a place in it, -1 for a padding token that is skipped; the key cache laid out [num_blocks, num_heads, head_size / x, block_size, x], the value cache [num_blocks, num_heads, head_size, block_size]; the tokens' key and value rows key_stride and value_stride floats apart), written from scratch for kt-tui's corpus
__global__ void reshape_and_cache(const float *__restrict__ key, const float *__restrict__ value,
                                  float *__restrict__ key_cache, float *__restrict__ value_cache,
                                  const long long *__restrict__ slot_mapping, const int key_stride,
                                  const int value_stride, const int num_heads, const int head_size,
                                  const int block_size, const int x, const int num_tokens)
{
    const long long token_idx = blockIdx.x;
    if (token_idx >= num_tokens)
        return;
    const long long slot_idx = slot_mapping[token_idx];
    if (slot_idx < 0)
        return;
    const long long block_idx = slot_idx / block_size;
    const long long block_offset = slot_idx % block_size;
    const int n = num_heads * head_size;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const int head_idx = i / head_size;
        const int head_offset = i % head_size;
        const int x_idx = head_offset / x;
        const int x_offset = head_offset % x;
        const long long tgt_key = (((block_idx * num_heads + head_idx) * (head_size / x) + x_idx) * block_size + block_offset) * x + x_offset;
        const long long tgt_value = ((block_idx * num_heads + head_idx) * head_size + head_offset) * block_size + block_offset;
        key_cache[tgt_key] = key[token_idx * key_stride + i];
        value_cache[tgt_value] = value[token_idx * value_stride + i];
    }
}
