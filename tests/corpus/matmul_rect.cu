// shape modelled on: PolyBench-GPU 2mm/gemm mm2_kernel1 (C[i][j] over NI x NJ with a k loop), written from scratch for kt-tui's corpus
// C (M x N) = A (M x K) * B (K x N), row-major
__global__ void gemm_naive(int M, int N, int K, const float *A, const float *B, float *C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < M && j < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++)
            sum += A[i * K + k] * B[k * N + j];
        C[i * N + j] = sum;
    }
}
