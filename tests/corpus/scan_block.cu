// shape modelled on: GPU Gems 3 ch.39 / PMPP Kogge-Stone inclusive scan per block (block sums written out), written from scratch for kt-tui's corpus
#define SECTION 256
__global__ void scan_block(const float *X, float *Y, float *block_sums, int n)
{
    __shared__ float buf[SECTION];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? X[i] : 0.0f;
    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        __syncthreads();
        float t = 0.0f;
        if (threadIdx.x >= stride)
            t = buf[threadIdx.x - stride];
        __syncthreads();
        buf[threadIdx.x] += t;
    }
    if (i < n)
        Y[i] = buf[threadIdx.x];
    if (threadIdx.x == blockDim.x - 1)
        block_sums[blockIdx.x] = buf[threadIdx.x];
}
