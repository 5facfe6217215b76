// shape modelled on: llama.cpp ggml-cuda dequantize_q4_0 (blocks of QK weights with one scale each; byte j of a block holds weight j in its low nibble and weight j + QK / 2 in its high one, both offset by 8), with scales and nibbles in separate arrays, written from scratch for kt-tui's corpus
#include <cuda_fp16.h>

// one thread per byte of qs (two weights); k weights in k / QK blocks
template <typename dst_t, int QK>
__global__ void dequantize_q4(const unsigned char *qs, const float *scales, dst_t *y, const int k)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k / 2)
        return;
    const int ib = i / (QK / 2);
    const int j = i % (QK / 2);
    const float d = scales[ib];
    const int q = qs[i];
    y[ib * QK + j] = (dst_t)(((q & 0x0F) - 8) * d);
    y[ib * QK + j + QK / 2] = (dst_t)(((q >> 4) - 8) * d);
}
