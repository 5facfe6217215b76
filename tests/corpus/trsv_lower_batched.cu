// shape modelled on: cuBLAS-style batched strided triangular solve (trsv / trsm with one right-hand side: L x = b for lower-triangular, unit-diagonal, column-major L with leading dimension lda, the batch's matrices strideA and vectors stridex elements apart), one block per system doing column-oriented forward substitution in place, written from scratch for kt-tui's corpus
__global__ void trsv_lower_unit_batched(int n, const double *A, int lda, long long strideA, double *x,
                                        long long stridex, int batch)
{
    const int sys = blockIdx.x;
    if (sys >= batch)
        return;
    const double *L = A + sys * strideA;
    double *b = x + sys * stridex;
    for (int j = 0; j < n - 1; j++) {
        __syncthreads();
        const double xj = b[j];
        for (int i = j + 1 + threadIdx.x; i < n; i += blockDim.x)
            b[i] -= L[i + (size_t)j * lda] * xj;
    }
}
