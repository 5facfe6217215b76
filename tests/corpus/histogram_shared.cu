// shape modelled on: NVIDIA developer blog "GPU Pro Tip: Fast Histograms Using Shared Atomics on Maxwell" (a block's histogram in shared memory, merged with global atomics, grid-stride input), written from scratch for kt-tui's corpus
// byte values 0..255 fall in nbins equal bins; local holds nbins counters (dynamic shared memory)
__global__ void histogram_smem(unsigned int *hist, const unsigned char *data, int n, int nbins)
{
    extern __shared__ unsigned int local[];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] * nbins / 256], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        if (local[b] > 0)
            atomicAdd(&hist[b], local[b]);
}
