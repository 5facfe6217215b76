// Fault: thread 0 writes 4 TiB past out: an illegal address that takes the CUDA context down.
__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i == 0) {
        out[(size_t)1 << 40] = 1.0f;
    }
    if (i < n) {
        out[i] = alpha * a[i] + b[i];
    }
}
