// Follows the shared-memory-atomics histogram of NVIDIA's "GPU Pro Tip: Fast Histograms Using Shared Atomics on Maxwell" (per-block bins in shared memory, merged with global atomics).
// bins[v] counts the values v (0..255) of data over n elements; threads walk the data with a grid-stride loop.
__global__ void histogram(unsigned int *bins, const int *data, int n) {
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += block_size_x) {
        local[b] = 0;
    }
    __syncthreads();
    int stride = gridDim.x * block_size_x;
    for (int i = blockIdx.x * block_size_x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&local[data[i] & 255], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += block_size_x) {
        if (local[b] != 0) {
            atomicAdd(&bins[b], local[b]);
        }
    }
}
