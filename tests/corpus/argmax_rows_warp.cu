// shape modelled on: llama.cpp ggml-cuda argmax_f32 / greedy sampling (the index of each row's largest logit), as one warp per row on 2-D blocks: row = blockIdx.x * blockDim.y + threadIdx.y, the 32 lanes threadIdx.x stride the row keeping (value, index), then a shuffle reduction of the pairs, ties to the lower index, written from scratch for kt-tui's corpus
#include <cfloat>
#include <cstdint>

__global__ void argmax_f32(const float *x, int32_t *dst, const int64_t ncols, const int64_t nrows)
{
    const int64_t row = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= nrows)
        return;
    const float *rowx = x + row * ncols;
    float maxval = -FLT_MAX;
    int argmax = -1;
    for (int64_t col = threadIdx.x; col < ncols; col += 32) {
        const float val = rowx[col];
        if (val > maxval) {
            maxval = val;
            argmax = (int)col;
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float other = __shfl_xor_sync(0xffffffff, maxval, offset);
        const int other_idx = __shfl_xor_sync(0xffffffff, argmax, offset);
        if (other > maxval || (other == maxval && other_idx < argmax)) {
            maxval = other;
            argmax = other_idx;
        }
    }
    if (threadIdx.x == 0)
        dst[row] = argmax;
}
