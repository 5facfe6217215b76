// shape modelled on: CUB's BlockHistogram / NVIDIA's shared-atomics histogram post applied to float samples (each block counts into nbins counters of dynamic shared memory, then adds them to the global histogram), written from scratch for kt-tui's corpus
// samples lie in [0, 1): bin = floor(v * nbins), the last bin takes v = 1 - epsilon; counts holds nbins ints
__global__ void histogram_float(unsigned int *hist, const float *v, int n, int nbins)
{
    extern __shared__ unsigned int counts[];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        counts[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = min((int)(v[i] * nbins), nbins - 1);
        atomicAdd(&counts[b], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        atomicAdd(&hist[b], counts[b]);
}
