// shape modelled on: PolyBench/GPU jacobi-2d (5-point average on the interior of an n x n grid, the border left alone), written from scratch for kt-tui's corpus
__global__ void jacobi2d_step(const float *A, float *B, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
