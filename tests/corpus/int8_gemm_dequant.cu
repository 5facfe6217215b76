// shape modelled on: W8A8 int8 linear layers (cuBLASLt IMMA GEMMs as SmoothQuant / bitsandbytes' int8 matmul use them: C[i][j] = scale_a[i] * scale_w[j] * sum over p of A[i][p] * W[j][p], int8 activations A (m x k) and weights W (n x k, the "NT" layout) with leading dimensions lda and ldw, int32 accumulation, C rows ldc floats apart), one thread per output on a 2-D grid, written from scratch for kt-tui's corpus
__global__ void int8_gemm_nt_dequant(int m, int n, int k, const signed char *A, int lda, const signed char *W,
                                     int ldw, const float *scale_a, const float *scale_w, float *C, int ldc)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= n)
        return;
    const signed char *a = A + (size_t)i * lda;
    const signed char *w = W + (size_t)j * ldw;
    int acc = 0;
    for (int p = 0; p < k; p++)
        acc += (int)a[p] * (int)w[p];
    C[(size_t)i * ldc + j] = scale_a[i] * scale_w[j] * (float)acc;
}
