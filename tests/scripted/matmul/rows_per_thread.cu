// Tiled C = A * B where each thread computes work_per_thread rows of its column, reusing each
// element of B it loads from shared memory work_per_thread times.
__global__ void matmul(float *C, const float *A, const float *B, int n) {
    __shared__ float sA[block_size_y * work_per_thread][block_size_x];
    __shared__ float sB[block_size_x][block_size_x];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * block_size_x + tx;
    int row0 = blockIdx.y * block_size_y * work_per_thread + ty;
    float sum[work_per_thread];
    for (int w = 0; w < work_per_thread; w++) {
        sum[w] = 0.0f;
    }
    for (int t = 0; t < n; t += block_size_x) {
        for (int w = 0; w < work_per_thread; w++) {
            int r = row0 + w * block_size_y;
            sA[ty + w * block_size_y][tx] = (r < n && t + tx < n) ? A[r * n + t + tx] : 0.0f;
        }
        for (int k = ty; k < block_size_x; k += block_size_y) {
            sB[k][tx] = (t + k < n && col < n) ? B[(t + k) * n + col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < block_size_x; k++) {
            float b = sB[k][tx];
            for (int w = 0; w < work_per_thread; w++) {
                sum[w] += sA[ty + w * block_size_y][k] * b;
            }
        }
        __syncthreads();
    }
    for (int w = 0; w < work_per_thread; w++) {
        int r = row0 + w * block_size_y;
        if (r < n && col < n) {
            C[r * n + col] = sum[w];
        }
    }
}
