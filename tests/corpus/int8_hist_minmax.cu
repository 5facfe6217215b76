// shape modelled on: calibration observers of int8 quantization toolkits (PyTorch's HistogramObserver / TensorRT calibrators run over an int8 tensor: a 256-bin histogram of the values and their min and max), a grid-stride loop into a block's shared histogram merged with atomics, written from scratch for kt-tui's corpus
__global__ void int8_hist_minmax(const signed char *q, long long n, unsigned int *hist, int *minmax)
{
    __shared__ unsigned int local[256];
    __shared__ int block_lo, block_hi;
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        local[b] = 0;
    if (threadIdx.x == 0) {
        block_lo = 127;
        block_hi = -128;
    }
    __syncthreads();
    int lo = 127, hi = -128;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {
        const int v = q[i];
        atomicAdd(&local[v + 128], 1u);
        lo = min(lo, v);
        hi = max(hi, v);
    }
    atomicMin(&block_lo, lo);
    atomicMax(&block_hi, hi);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b] != 0)
            atomicAdd(&hist[b], local[b]);
    if (threadIdx.x == 0) {
        atomicMin(&minmax[0], block_lo);
        atomicMax(&minmax[1], block_hi);
    }
}
