// Fault: every thread spins forever.
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    long long start = clock64();
    while (clock64() - start >= 0) { }
    if (i < n) {
        out[i] = alpha * a[i] + b[i];
    }
}
