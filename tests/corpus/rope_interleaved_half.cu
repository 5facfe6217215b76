// shape modelled on: rotary position embedding in the interleaved (GPT-J, "rotate every two") layout (llama.cpp's rope in normal mode, vLLM's rotary_embedding with is_neox = false: pair (2i, 2i + 1) of every head rotated by position * base^(-2i / head_dim)), in place on half storage, q the first nheads * head_dim halves of each token's fused qkv row ld halves apart, positions per token, x across a token's pairs and y across the tokens, written from scratch for kt-tui's corpus
#include <cuda_fp16.h>

__global__ void rope_interleaved(__half *q, const int *positions, int ntokens, int nheads, int head_dim, int ld,
                                 float base)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    const int t = blockIdx.y * blockDim.y + threadIdx.y;
    const int pairs = head_dim / 2;
    if (p >= nheads * pairs || t >= ntokens)
        return;
    const int h = p / pairs;
    const int i = p % pairs;
    const float inv_freq = powf(base, -2.0f * i / head_dim);
    float s, c;
    sincosf(positions[t] * inv_freq, &s, &c);
    __half *v = q + (size_t)t * ld + (size_t)h * head_dim + 2 * i;
    const float x0 = __half2float(v[0]);
    const float x1 = __half2float(v[1]);
    v[0] = __float2half(x0 * c - x1 * s);
    v[1] = __float2half(x0 * s + x1 * c);
}
