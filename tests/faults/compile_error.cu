// Fault: does not compile (an undeclared name).
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        out[i] = alpha * a[i] + b[i] * beta;
    }
}
