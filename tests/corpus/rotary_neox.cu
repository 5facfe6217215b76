// shape modelled on: vLLM's rotary_embedding_kernel in GPT-NeoX style (one block per token, its threads over the heads' rotation pairs; the token's position picks a row of the cos | sin cache; the token's query and key rows lie query_stride and key_stride floats past the previous token's; only the first rot_dim values of each head rotate), written from scratch for kt-tui's corpus
__device__ void rotate_pair(float *head, const float *cos_row, const float *sin_row, int r, int half)
{
    float x = head[r];
    float y = head[r + half];
    float c = cos_row[r];
    float s = sin_row[r];
    head[r] = x * c - y * s;
    head[r + half] = y * c + x * s;
}

__global__ void rotary_embedding_neox(const long long *positions, float *query, float *key, const float *cos_sin_cache,
                                      int rot_dim, long long query_stride, long long key_stride, int num_heads,
                                      int num_kv_heads, int head_size, int num_tokens)
{
    int token = blockIdx.x;
    if (token >= num_tokens)
        return;
    const float *cos_row = cos_sin_cache + positions[token] * rot_dim;
    int half = rot_dim / 2;
    const float *sin_row = cos_row + half;
    for (int i = threadIdx.x; i < num_heads * half; i += blockDim.x) {
        int head = i / half;
        rotate_pair(query + token * query_stride + head * head_size, cos_row, sin_row, i % half, half);
    }
    for (int i = threadIdx.x; i < num_kv_heads * half; i += blockDim.x) {
        int head = i / half;
        rotate_pair(key + token * key_stride + head * head_size, cos_row, sin_row, i % half, half);
    }
}
