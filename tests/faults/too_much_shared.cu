// Fault: 64 KiB of static shared memory, over the 48 KiB a kernel may declare statically.
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    __shared__ float scratch[16384];
    int i = blockIdx.x * block_size_x + threadIdx.x;
    scratch[threadIdx.x] = alpha * a[i < n ? i : 0];
    __syncthreads();
    if (i < n) {
        out[i] = scratch[threadIdx.x] + b[i];
    }
}
