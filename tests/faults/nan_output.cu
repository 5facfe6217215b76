// Fault: NaN wherever a is negative (sqrtf of a negative number, times zero, is still NaN).
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        out[i] = alpha * a[i] + b[i] + 0.0f * sqrtf(a[i]);
    }
}
