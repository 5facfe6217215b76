// shape modelled on: CUDA by Example ch.9 histo_kernel, shared-memory version (per-block privatised 256-bin histogram merged with atomics), written from scratch for kt-tui's corpus
__global__ void histo_shared(const unsigned char *buffer, long size, unsigned int *histo)
{
    __shared__ unsigned int temp[256];
    temp[threadIdx.x] = 0;
    __syncthreads();
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&temp[buffer[i]], 1);
        i += offset;
    }
    __syncthreads();
    atomicAdd(&histo[threadIdx.x], temp[threadIdx.x]);
}
