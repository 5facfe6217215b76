// shape modelled on: NVIDIA cuda-samples reduction reduce0/reduce1 (shared-memory tree, one partial per block), written from scratch for kt-tui's corpus
#define THREADS 256
__global__ void reduce_partial(const float *in, float *partial, int n)
{
    __shared__ float sdata[THREADS];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}
