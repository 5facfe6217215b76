// shape modelled on: PyTorch ATen's layer norm backward for the input gradient (aten/src/ATen/native/cuda/layer_norm_kernel.cu, layer_norm_grad_input_kernel: one block per row of N features reduces sum(dy * gamma) and sum(dy * gamma * xhat) with warp shuffles and one partial per warp in shared memory, then writes dX from the saved mean and rstd), written from scratch for kt-tui's corpus
__global__ void layer_norm_grad_input(const float *dY, const float *X, const float *mean, const float *rstd,
                                      const float *gamma, float *dX, int M, int N)
{
    __shared__ float s_a[32];
    __shared__ float s_b[32];
    const int row = blockIdx.x;
    if (row >= M)
        return;
    const size_t base = (size_t)row * N;
    const float mu = mean[row];
    const float rs = rstd[row];
    const int lane = threadIdx.x & 31;
    const int wid = threadIdx.x >> 5;
    float a = 0.0f, b = 0.0f;
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        const float g = dY[base + i] * gamma[i];
        a += g;
        b += g * (X[base + i] - mu) * rs;
    }
    for (int off = 16; off > 0; off >>= 1) {
        a += __shfl_down_sync(0xffffffff, a, off);
        b += __shfl_down_sync(0xffffffff, b, off);
    }
    if (lane == 0) {
        s_a[wid] = a;
        s_b[wid] = b;
    }
    __syncthreads();
    if (wid == 0) {
        const int nwarps = (blockDim.x + 31) >> 5;
        a = lane < nwarps ? s_a[lane] : 0.0f;
        b = lane < nwarps ? s_b[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) {
            a += __shfl_down_sync(0xffffffff, a, off);
            b += __shfl_down_sync(0xffffffff, b, off);
        }
        if (lane == 0) {
            s_a[0] = a;
            s_b[0] = b;
        }
    }
    __syncthreads();
    const float inv_n = 1.0f / N;
    const float sum_a = s_a[0];
    const float sum_b = s_b[0];
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        const float xhat = (X[base + i] - mu) * rs;
        dX[base + i] = rs * (dY[base + i] * gamma[i] - (sum_a + xhat * sum_b) * inv_n);
    }
}
