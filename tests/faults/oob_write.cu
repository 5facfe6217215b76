// Fault: each result is written one element too far; out[0] stays unwritten and out[n] is
// written out of bounds (usually without a fault: memcheck sees it).
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        out[i + 1] = alpha * a[i] + b[i];
    }
}
