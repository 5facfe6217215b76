// shape modelled on: one-block-per-row layer norm kernels (shared-memory sums, e.g. llm.c layernorm_forward_kernel1 style), written from scratch for kt-tui's corpus
#define BLOCK 128
__global__ void layernorm(float *out, const float *x, const float *gamma, const float *beta, int N, int C, float eps)
{
    __shared__ float s_sum[BLOCK];
    __shared__ float s_sq[BLOCK];
    int row = blockIdx.x;
    if (row >= N) return;
    const float *xr = x + row * C;
    float sum = 0.0f, sq = 0.0f;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        sum += xr[c];
        sq += xr[c] * xr[c];
    }
    s_sum[threadIdx.x] = sum;
    s_sq[threadIdx.x] = sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + s];
            s_sq[threadIdx.x] += s_sq[threadIdx.x + s];
        }
        __syncthreads();
    }
    float mean = s_sum[0] / C;
    float var = s_sq[0] / C - mean * mean;
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < C; c += blockDim.x)
        out[row * C + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
