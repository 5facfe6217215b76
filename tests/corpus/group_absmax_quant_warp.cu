// shape modelled on: group-wise weight quantization of LLM inference libraries (GPTQ / AWQ / bitsandbytes blockwise: each row's cols split into `groups` equal groups, each group scaled by its absmax / 127 and rounded to int8), one warp per (row, group) with a shuffle max, written from scratch for kt-tui's corpus
__global__ void group_absmax_quant(const float *w, int rows, int cols, int groups, signed char *q, float *scales)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (warp >= rows * groups)
        return;
    const int row = warp / groups;
    const int g = warp % groups;
    const int gsize = cols / groups;
    const float *src = w + (size_t)row * cols + g * gsize;
    float amax = 0.0f;
    for (int i = lane; i < gsize; i += 32)
        amax = fmaxf(amax, fabsf(src[i]));
    for (int o = 16; o > 0; o >>= 1)
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffff, amax, o));
    const float scale = amax > 0.0f ? amax / 127.0f : 1.0f;
    signed char *dst = q + (size_t)row * cols + g * gsize;
    for (int i = lane; i < gsize; i += 32)
        dst[i] = (signed char)__float2int_rn(src[i] / scale);
    if (lane == 0)
        scales[row * groups + g] = scale;
}
