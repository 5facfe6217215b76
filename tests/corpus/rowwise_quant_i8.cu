// shape modelled on: per-token dynamic int8 quantization (vLLM's dynamic_scaled_int8_quant, bitsandbytes' row-wise LLM.int8() quantization: each row's scale is its largest |x| / 127 and q = round(x / scale)), as one warp per row on 2-D blocks the way llama.cpp's row kernels are (row = blockIdx.x * blockDim.y + threadIdx.y, the 32 lanes threadIdx.x stride the row, a xor-shuffle max); input rows in_stride floats apart (a slice of a wider activation), written from scratch for kt-tui's corpus
__global__ void rowwise_quant_i8(signed char *__restrict__ out, float *__restrict__ scales, const float *__restrict__ in,
                                 const int hidden, const int in_stride, const int tokens)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= tokens)
        return;
    const float *x = in + (size_t)row * in_stride;
    float amax = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += 32)
        amax = fmaxf(amax, fabsf(x[i]));
    for (int mask = 16; mask > 0; mask >>= 1)
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffff, amax, mask));
    const float inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    signed char *q = out + (size_t)row * hidden;
    for (int i = threadIdx.x; i < hidden; i += 32) {
        const float v = rintf(x[i] * inv);
        q[i] = (signed char)fminf(fmaxf(v, -128.0f), 127.0f);
    }
    if (threadIdx.x == 0)
        scales[row] = amax / 127.0f;
}
