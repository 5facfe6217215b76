// shape modelled on: the BLAS sgemm interface with leading dimensions (cuBLAS cublasSgemm, here row-major: A is m x k with rows lda apart, B k x n with rows ldb apart, C m x n with rows ldc apart), written from scratch for kt-tui's corpus
__global__ void sgemm_ld(int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb, float beta,
                         float *C, int ldc)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (int p = 0; p < k; p++)
            acc += A[row * lda + p] * B[p * ldb + col];
        C[row * ldc + col] = alpha * acc + beta * C[row * ldc + col];
    }
}
