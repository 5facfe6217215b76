// shape modelled on: an int8 matrix-vector product with per-row scales (bitsandbytes' vector-wise int8 quantisation, llama.cpp's / ggml's dp4a dot products of int8 weights with an int8-quantised activation, TensorRT-LLM's weight-only int8 GEMV): a warp per row ((blockIdx.x * blockDim.x + threadIdx.x) / 32), int8 weights read four a 32-bit word, rows ld4 words apart, k4 words a row, __dp4a against the quantised x, a shuffle sum, y = scale[row] * xscale * sum + bias[row], written from scratch for kt-tui's corpus
__global__ void gemv_i8_rowscale(const int *w, int ld4, const int *xq, float xscale, const float *scale, const float *bias,
                                 int rows, int k4, float *y)
{
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = gid / 32;
    const int lane = gid % 32;
    if (row >= rows)
        return;
    const int *wr = w + (size_t)row * ld4;
    int acc = 0;
    for (int c = lane; c < k4; c += 32)
        acc = __dp4a(wr[c], xq[c], acc);
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0)
        y[row] = scale[row] * xscale * (float)acc + bias[row];
}
