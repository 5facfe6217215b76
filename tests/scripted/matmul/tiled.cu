// C = A * B with square tiles of A and B staged through shared memory.
__global__ void matmul(float *C, const float *A, const float *B, int n) {
    __shared__ float sA[block_size_y][block_size_x];
    __shared__ float sB[block_size_y][block_size_x];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * block_size_x + tx;
    int row = blockIdx.y * block_size_y + ty;
    float sum = 0.0f;
    for (int t = 0; t < n; t += block_size_x) {
        sA[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
        sB[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < block_size_x; k++) {
            sum += sA[ty][k] * sB[k][tx];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        C[row * n + col] = sum;
    }
}
