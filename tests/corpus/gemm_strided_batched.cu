// shape modelled on: cuBLAS cublasSgemmStridedBatched's semantics (batch `b` of A, B, C at b * stride_a, b * stride_b, b * stride_c; row-major here), as a naive one-thread-per-element kernel, written from scratch for kt-tui's corpus
__global__ void gemm_strided_batched(const float *A, const float *B, float *C, int M, int N, int K, int stride_a,
                                     int stride_b, int stride_c, int batch)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int b = blockIdx.z;
    if (row < M && col < N && b < batch) {
        const float *a = A + b * stride_a;
        const float *bb = B + b * stride_b;
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += a[row * K + k] * bb[k * N + col];
        C[b * stride_c + row * N + col] = acc;
    }
}
