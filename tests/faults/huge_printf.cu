// Fault: floods the device printf buffer (the result itself is right).
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if ((i & 255) == 0) {
        for (int k = 0; k < 64; k++) {
            printf("thread %d line %d: a = %f, b = %f\n", i, k, a[i], b[i]);
        }
    }
    if (i < n) {
        out[i] = alpha * a[i] + b[i];
    }
}
