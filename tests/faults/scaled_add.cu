// out = alpha * a + b, one element per thread: the correct base of the fault suite.
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        out[i] = alpha * a[i] + b[i];
    }
}
