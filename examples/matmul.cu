// Naive C = A * B for square n x n row-major matrices: one output element per thread,
// every operand read straight from global memory.
__global__ void matmul(float *C, const float *A, const float *B, int n) {
    int col = blockIdx.x * block_size_x + threadIdx.x;
    int row = blockIdx.y * block_size_y + threadIdx.y;
    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; k++) {
            sum += A[row * n + k] * B[k * n + col];
        }
        C[row * n + col] = sum;
    }
}
