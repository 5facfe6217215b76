// shape modelled on: FasterTransformer's add_QKV_bias_transpose (src/fastertransformer/kernels/unfused_attention_kernels.cu: one block per token adds the bias to its fused Q | K | V row of 3 * hidden halves and scatters each into [batch, head_num, seq_len, size_per_head] with size_per_head = hidden / head_num), halves passed as their 16-bit patterns, written from scratch for kt-tui's corpus
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned short add_half_bits(unsigned short x, unsigned short y)
{
    const float s = __half2float(__ushort_as_half(x)) + __half2float(__ushort_as_half(y));
    return __half_as_ushort(__float2half_rn(s));
}

__global__ void add_qkv_bias_transpose(unsigned short *q_out, unsigned short *k_out, unsigned short *v_out,
                                       const unsigned short *qkv, const unsigned short *bias, int batch_size,
                                       int seq_len, int head_num, int hidden)
{
    const int token = blockIdx.x;
    if (token >= batch_size * seq_len)
        return;
    const int b = token / seq_len;
    const int s = token % seq_len;
    const int size_per_head = hidden / head_num;
    const unsigned short *row = qkv + (size_t)token * 3 * hidden;
    for (int i = threadIdx.x; i < 3 * hidden; i += blockDim.x) {
        const int which = i / hidden;
        const int col = i % hidden;
        const int head = col / size_per_head;
        const int d = col % size_per_head;
        const size_t dst = (((size_t)b * head_num + head) * seq_len + s) * size_per_head + d;
        unsigned short *out = which == 0 ? q_out : which == 1 ? k_out : v_out;
        out[dst] = add_half_bits(row[i], bias[i]);
    }
}
