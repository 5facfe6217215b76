// Fault: the last element is never written (it keeps the poison value, NaN).
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n - 1) {
        out[i] = alpha * a[i] + b[i];
    }
}
