// shape modelled on: NVIDIA developer blog "Faster Parallel Reductions on Kepler" (shuffle reduction per warp, one atomicAdd per warp, grid-stride input), written from scratch for kt-tui's corpus
__inline__ __device__ float warp_reduce(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void sum_all(float *total, const float *in, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    v = warp_reduce(v);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(total, v);
}
