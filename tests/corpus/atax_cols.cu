// shape modelled on: PolyBench/GPU atax (second kernel, y = A^T tmp: one thread per column, a loop down the rows), written from scratch for kt-tui's corpus
__global__ void atax_transpose(const float *A, const float *tmp, float *y, int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        float sum = 0.0f;
        for (int i = 0; i < nx; i++)
            sum += A[i * ny + j] * tmp[i];
        y[j] = sum;
    }
}
