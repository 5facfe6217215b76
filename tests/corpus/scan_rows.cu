// shape modelled on: PyTorch/Apex row kernels that loop `for (row = blockIdx.x; row < rows; row += gridDim.x)` with a Hillis-Steele shared-memory scan per chunk (GPU Gems 3 ch.39), written from scratch for kt-tui's corpus
#define BLOCK 256
// inclusive prefix sum of each row of a rows x cols matrix, one thread block per row
__global__ void scan_rows(const float *in, float *out, int rows, int cols)
{
    __shared__ float buf[BLOCK];
    for (int row = blockIdx.x; row < rows; row += gridDim.x) {
        const float *src = in + (size_t)row * cols;
        float *dst = out + (size_t)row * cols;
        float carry = 0.0f;
        for (int base = 0; base < cols; base += blockDim.x) {
            int c = base + threadIdx.x;
            buf[threadIdx.x] = c < cols ? src[c] : 0.0f;
            __syncthreads();
            for (int off = 1; off < blockDim.x; off *= 2) {
                float t = threadIdx.x >= off ? buf[threadIdx.x - off] : 0.0f;
                __syncthreads();
                buf[threadIdx.x] += t;
                __syncthreads();
            }
            if (c < cols)
                dst[c] = buf[threadIdx.x] + carry;
            carry += buf[blockDim.x - 1];
            __syncthreads();
        }
    }
}
