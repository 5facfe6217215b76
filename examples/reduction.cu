// Sum of n floats into out[0]: each thread adds items_per_thread strided elements, each block
// reduces in shared memory, and one thread per block adds the block's sum atomically.
// out[0] must start at zero. block_size_x must be a power of two.
__global__ void reduce_sum(float *out, const float *in, int n) {
    __shared__ float partial[block_size_x];
    int tid = threadIdx.x;
    int base = blockIdx.x * block_size_x * items_per_thread + tid;
    float sum = 0.0f;
    for (int k = 0; k < items_per_thread; k++) {
        int i = base + k * block_size_x;
        if (i < n) {
            sum += in[i];
        }
    }
    partial[tid] = sum;
    __syncthreads();
    for (int s = block_size_x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            partial[tid] += partial[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        atomicAdd(out, partial[0]);
    }
}
