// shape modelled on: cuBLAS cublasSgemvStridedBatched (item b's matrix, x and y lie strideA, stridex and stridey elements past item b - 1's), written from scratch for kt-tui's corpus
// y_b = alpha * A_b x_b + beta * y_b; A_b is m x n, row-major with leading dimension lda
__global__ void gemv_strided_batched(int m, int n, float alpha, const float *A, int lda, long long strideA,
                                     const float *x, long long stridex, float beta, float *y, long long stridey,
                                     int batch)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && b < batch) {
        const float *a = A + b * strideA + (long long)row * lda;
        const float *xb = x + b * stridex;
        float acc = 0.0f;
        for (int j = 0; j < n; j++)
            acc += a[j] * xb[j];
        float *yb = y + b * stridey;
        yb[row] = alpha * acc + beta * yb[row];
    }
}
