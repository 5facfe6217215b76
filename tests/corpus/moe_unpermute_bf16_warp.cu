// shape modelled on: the finalize step of mixture-of-experts layers (TensorRT-LLM's finalizeMoeRouting and the unpermute of fused-MoE paths: each token's topk expert outputs, scattered into expert-sorted rows, gathered back through the permutation and summed with the router weights), bf16 activations kept as 16-bit words, one warp per token, written from scratch for kt-tui's corpus
__device__ __forceinline__ float bf16_to_float(unsigned short b)
{
    return __uint_as_float((unsigned int)b << 16);
}

__device__ __forceinline__ unsigned short float_to_bf16(float f)
{
    const unsigned int u = __float_as_uint(f);
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);  // round to nearest even
}

__global__ void moe_unpermute(const unsigned short *expert_out, const int *expanded_row, const float *weights,
                              int ntokens, int topk, int hidden, unsigned short *out)
{
    const int t = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (t >= ntokens)
        return;
    for (int h = lane; h < hidden; h += 32) {
        float acc = 0.0f;
        for (int k = 0; k < topk; ++k) {
            const int r = expanded_row[t * topk + k];
            acc += weights[t * topk + k] * bf16_to_float(expert_out[(size_t)r * hidden + h]);
        }
        out[(size_t)t * hidden + h] = float_to_bf16(acc);
    }
}
