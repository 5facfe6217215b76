// shape modelled on: ALiBi attention biases with a causal mask over a KV cache (BLOOM / MPT / Falcon-style attention: head h of num_heads adds slope_h * (key - query position) to its scores, slope_h = 2^(-8 (h + 1) / num_heads); query q sits at position past_len + q and the keys after it are masked), in place on a batch's score matrices whose rows are ld floats apart, one thread per score on a 3-D grid of keys, queries and batch x heads, written from scratch for kt-tui's corpus
__global__ void alibi_causal_bias(float *scores, int ld, int q_len, int past_len, int num_heads, int batch)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int q = blockIdx.y * blockDim.y + threadIdx.y;
    const int bh = blockIdx.z * blockDim.z + threadIdx.z;
    const int k_len = past_len + q_len;
    if (k >= k_len || q >= q_len || bh >= batch * num_heads)
        return;
    const int h = bh % num_heads;
    const float slope = exp2f(-8.0f * (float)(h + 1) / (float)num_heads);
    float *s = scores + ((size_t)bh * q_len + q) * ld + k;
    const int qpos = past_len + q;
    *s = k > qpos ? -3.0e38f : *s + slope * (float)(k - qpos);
}
