// Fault: alpha and n swapped in the parameter list; the launch still passes (out, a, b, alpha, n).
__global__ void scaled_add(float *out, const float *a, const float *b, int n, float alpha) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        out[i] = alpha * a[i] + b[i];
    }
}
