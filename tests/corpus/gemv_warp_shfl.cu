// shape modelled on: Cjkkkk/CUDA_gemv sgemv kernels (one warp per matrix row, lanes stride the row, shuffle reduction), written from scratch for kt-tui's corpus
__global__ void gemv_warp(const float *A, const float *x, float *y, int m, int n, float alpha, float beta)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp >= m)
        return;
    float sum = 0.0f;
    for (int k = lane; k < n; k += 32)
        sum += A[warp * n + k] * x[k];
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_xor_sync(0xffffffff, sum, offset);
    if (lane == 0)
        y[warp] = alpha * sum + beta * y[warp];
}
