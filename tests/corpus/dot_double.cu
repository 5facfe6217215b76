// shape modelled on: CUDA by Example ch.5 dot product (shared-memory cache, then one atomicAdd per block), written from scratch for kt-tui's corpus
#define THREADS_PER_BLOCK 256
__global__ void dot(const double *a, const double *b, double *result, int n)
{
    __shared__ double cache[THREADS_PER_BLOCK];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    double temp = 0.0;
    while (tid < n) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }
    cache[threadIdx.x] = temp;
    __syncthreads();
    for (int i = blockDim.x / 2; i != 0; i /= 2) {
        if (threadIdx.x < i)
            cache[threadIdx.x] += cache[threadIdx.x + i];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(result, cache[0]);
}
