// shape modelled on: PyTorch's fused dropout (aten/src/ATen/native/cuda/Dropout.cu: each element kept with probability 1 - p and scaled by 1 / (1 - p), the keep mask written as bytes), the Philox draw replaced by a counter-based integer hash of (seed, i), a grid-stride loop, written from scratch for kt-tui's corpus
__device__ unsigned int mix32(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

__global__ void dropout_mask(const float *x, int n, float p, unsigned int seed, float *y, unsigned char *mask)
{
    const float scale = 1.0f / (1.0f - p);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned int r = mix32(seed ^ mix32((unsigned int)i));
        const float u = (r >> 8) * (1.0f / 16777216.0f);
        const bool keep = u >= p;
        mask[i] = keep;
        y[i] = keep ? x[i] * scale : 0.0f;
    }
}
