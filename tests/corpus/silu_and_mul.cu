// shape modelled on: vLLM's act_and_mul_kernel with SiLU (csrc/activation_kernels.cu: one block per token, its threads striding d; out[token, i] = silu(input[token, i]) * input[token, d + i], the input rows 2 * d wide), templated on the element type as vLLM's is, written from scratch for kt-tui's corpus
template <typename T>
__device__ __forceinline__ T silu(const T &v)
{
    return (T)(((float)v) / (1.0f + expf(-(float)v)));
}

template <typename scalar_t>
__global__ void silu_and_mul_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ input, const int d,
                                    const int num_tokens)
{
    const long long token_idx = blockIdx.x;
    if (token_idx >= num_tokens)
        return;
    for (long long idx = threadIdx.x; idx < d; idx += blockDim.x) {
        const scalar_t x = input[token_idx * 2 * d + idx];
        const scalar_t y = input[token_idx * 2 * d + d + idx];
        out[token_idx * d + idx] = silu(x) * y;
    }
}
