// shape modelled on: llm.c's cross-entropy forward over padded logits (B * T rows of V logits, rows Vp floats apart) written as one warp per row: row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, a shuffle max, a shuffle sum of exp, then loss = log-sum-exp - the target's logit, written from scratch for kt-tui's corpus
#include <cfloat>

__global__ void cross_entropy_forward(float *losses, const float *logits, const int *targets, int BT, int V, int Vp)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= BT)
        return;
    const float *x = logits + (size_t)row * Vp;
    float maxval = -FLT_MAX;
    for (int v = lane; v < V; v += 32)
        maxval = fmaxf(maxval, x[v]);
    for (int offset = 16; offset > 0; offset >>= 1)
        maxval = fmaxf(maxval, __shfl_xor_sync(0xffffffff, maxval, offset));
    float sum = 0.0f;
    for (int v = lane; v < V; v += 32)
        sum += expf(x[v] - maxval);
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_xor_sync(0xffffffff, sum, offset);
    if (lane == 0)
        losses[row] = logf(sum) + maxval - x[targets[row]];
}
