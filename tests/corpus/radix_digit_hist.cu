// shape modelled on: the digit-histogram pass of an LSD radix sort (CUB DeviceRadixSort's upsweep / onesweep histograms: digit (key >> shift) % radix counted per block in shared memory, then added to the global counts), a grid-stride loop over the keys, written from scratch for kt-tui's corpus
#define MAX_RADIX 256
__global__ void radix_hist(const unsigned int *keys, int n, int shift, int radix, unsigned int *counts)
{
    __shared__ unsigned int h[MAX_RADIX];
    for (int i = threadIdx.x; i < radix; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&h[(keys[i] >> shift) % radix], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < radix; i += blockDim.x)
        if (h[i])
            atomicAdd(&counts[i], h[i]);
}
