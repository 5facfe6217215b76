// shape modelled on: the decode-time GEMV of a group-wise 4-bit weight-only quantised linear layer (AutoGPTQ's / exllama's and AWQ's w4a16 gemv kernels, llama.cpp's Q4_1-style dequantise-and-dot, TensorRT-LLM's weight-only groupwise GEMV): a warp per output row (blockDim.y rows a block), eight 4-bit weights packed in each 32-bit word, a float scale and a byte zero point every GROUP = 128 weights (a #define), the lanes striding over the row's K / 8 words and a shuffle reduction, written from scratch for kt-tui's corpus
#define GROUP 128

__global__ void gemv_w4_group(const unsigned int *qweight, const float *scales, const unsigned char *zeros,
                              const float *x, int rows, int K, float *y)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= rows)
        return;
    const int words = K / 8;
    const int groups = K / GROUP;
    const unsigned int *w = qweight + (size_t)row * words;
    float acc = 0.0f;
    for (int c = threadIdx.x; c < words; c += 32) {
        const unsigned int packed = w[c];
        const int g = c * 8 / GROUP;
        const float s = scales[(size_t)row * groups + g];
        const float z = (float)zeros[(size_t)row * groups + g];
        for (int n = 0; n < 8; ++n) {
            const float q = (float)((packed >> (4 * n)) & 15u);
            acc += (q - z) * s * x[c * 8 + n];
        }
    }
    for (int off = 16; off > 0; off /= 2)
        acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (threadIdx.x == 0)
        y[row] = acc;
}
