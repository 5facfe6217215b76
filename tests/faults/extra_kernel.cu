// Fault: a second __global__ function beside the kernel (never launched by kt-tui).
__global__ void clear(float *out, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        out[i] = 0.0f;
    }
}

__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        out[i] = alpha * a[i] + b[i];
    }
}
