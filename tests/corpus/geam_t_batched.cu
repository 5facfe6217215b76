// shape modelled on: cuBLAS cublasDgeam with transa = CUBLAS_OP_T, batched as the *StridedBatched routines are (C_b = alpha * A_b^T + beta * B_b, item b's matrices strideA, strideB and strideC elements past item b - 1's; row-major here), written from scratch for kt-tui's corpus
// C_b and B_b are m x n with leading dimensions ldc and ldb; A_b is n x m with leading dimension lda
__global__ void geam_t_strided_batched(int m, int n, double alpha, const double *A, int lda, long long strideA,
                                       double beta, const double *B, int ldb, long long strideB, double *C, int ldc,
                                       long long strideC, int batchCount)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;
    if (i < m && j < n && b < batchCount) {
        double a = A[b * strideA + (long long)j * lda + i];
        double bv = B[b * strideB + (long long)i * ldb + j];
        C[b * strideC + (long long)i * ldc + j] = alpha * a + beta * bv;
    }
}
