// shape modelled on: batched small GEMM kernels (one matrix per blockIdx.z, e.g. MAGMA vbatched teaching versions), written from scratch for kt-tui's corpus
#define MS 16
// A, B, C hold `batch` row-major MS x MS matrices back to back
__global__ void batched_matmul(const float *A, const float *B, float *C, int batch)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int m = blockIdx.z;
    if (m < batch && row < MS && col < MS) {
        const float *a = A + m * MS * MS;
        const float *b = B + m * MS * MS;
        float s = 0.0f;
        for (int k = 0; k < MS; k++)
            s += a[row * MS + k] * b[k * MS + col];
        C[m * MS * MS + row * MS + col] = s;
    }
}
