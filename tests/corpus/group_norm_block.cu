// shape modelled on: PyTorch ATen's group norm forward (aten/src/ATen/native/cuda/group_norm_kernel.cu: one block per (sample, group) reduces that group's C / group channels of HxW values to a mean and an rstd, warp shuffles then one partial per warp in shared memory; the per-channel gamma and beta applied after), here both steps in one block, written from scratch for kt-tui's corpus
// X is N x C x HxW; the channels of group g of sample n are g * (C / group) .. (g + 1) * (C / group) - 1
__global__ void group_norm_forward(const float *X, const float *gamma, const float *beta, int N, int C, int HxW,
                                   int group, float eps, float *Y, float *mean, float *rstd)
{
    __shared__ float s_sum[32];
    __shared__ float s_sq[32];
    const int ng = blockIdx.x;
    if (ng >= N * group)
        return;
    const int D = C / group;
    const int len = D * HxW;
    const size_t base = (size_t)ng * len;
    const int lane = threadIdx.x & 31;
    const int wid = threadIdx.x >> 5;
    float sum = 0.0f, sq = 0.0f;
    for (int i = threadIdx.x; i < len; i += blockDim.x) {
        const float v = X[base + i];
        sum += v;
        sq += v * v;
    }
    for (int off = 16; off > 0; off >>= 1) {
        sum += __shfl_down_sync(0xffffffff, sum, off);
        sq += __shfl_down_sync(0xffffffff, sq, off);
    }
    if (lane == 0) {
        s_sum[wid] = sum;
        s_sq[wid] = sq;
    }
    __syncthreads();
    if (wid == 0) {
        const int nwarps = (blockDim.x + 31) / 32;
        sum = lane < nwarps ? s_sum[lane] : 0.0f;
        sq = lane < nwarps ? s_sq[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) {
            sum += __shfl_down_sync(0xffffffff, sum, off);
            sq += __shfl_down_sync(0xffffffff, sq, off);
        }
        if (lane == 0) {
            s_sum[0] = sum;
            s_sq[0] = sq;
        }
    }
    __syncthreads();
    const float mu = s_sum[0] / len;
    const float var = fmaxf(s_sq[0] / len - mu * mu, 0.0f);
    const float rs = rsqrtf(var + eps);
    if (threadIdx.x == 0) {
        mean[ng] = mu;
        rstd[ng] = rs;
    }
    const int c0 = (ng % group) * D;
    for (int i = threadIdx.x; i < len; i += blockDim.x) {
        const int c = c0 + i / HxW;
        Y[base + i] = (X[base + i] - mu) * rs * gamma[c] + beta[c];
    }
}
