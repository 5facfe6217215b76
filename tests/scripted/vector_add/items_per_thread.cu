// c = a + b where each thread adds items_per_thread elements, block_size_x apart (coalesced).
__global__ void vector_add(float *c, const float *a, const float *b, int n) {
    int i = blockIdx.x * block_size_x * items_per_thread + threadIdx.x;
    #pragma unroll
    for (int k = 0; k < items_per_thread; k++) {
        int j = i + k * block_size_x;
        if (j < n) {
            c[j] = a[j] + b[j];
        }
    }
}
