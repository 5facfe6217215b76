// shape modelled on: PMPP textbook ch.4 MatrixMulKernel (square Width x Width), written from scratch for kt-tui's corpus
__global__ void matmul_square(const float *A, const float *B, float *C, int dim)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < dim && col < dim) {
        float acc = 0.0f;
        for (int k = 0; k < dim; ++k)
            acc += A[row * dim + k] * B[k * dim + col];
        C[row * dim + col] = acc;
    }
}
