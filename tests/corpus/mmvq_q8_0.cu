// shape modelled on: llama.cpp's ggml-cuda mat-vec product over q8_0 weights (blocks of QK8_0 = 32 int8 weights with one fp16 scale each, ncols / QK8_0 blocks per row; a warp per row on blocks of 32 x rows-per-block threads, shuffle sums), the scales kept in their own array of half bits, written from scratch for kt-tui's corpus
#include <cuda_fp16.h>

#define QK8_0 32

// launched with blockDim.x = 32: threadIdx.x is the lane, threadIdx.y picks the row within the block
__global__ void mul_mat_vec_q8_0(const signed char *qs, const unsigned short *d, const float *x, float *dst, int ncols,
                                 int nrows)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    const int lane = threadIdx.x;
    if (row >= nrows)
        return;
    const int blocks_per_row = ncols / QK8_0;
    float sum = 0.0f;
    for (int ib = lane; ib < blocks_per_row; ib += 32) {
        const size_t blk = (size_t)row * blocks_per_row + ib;
        const signed char *q = qs + blk * QK8_0;
        const float *xb = x + ib * QK8_0;
        float s = 0.0f;
        for (int j = 0; j < QK8_0; j++)
            s += q[j] * xb[j];
        sum += __half2float(__ushort_as_half(d[blk])) * s;
    }
    for (int mask = 16; mask > 0; mask >>= 1)
        sum += __shfl_xor_sync(0xffffffff, sum, mask);
    if (lane == 0)
        dst[row] = sum;
}
