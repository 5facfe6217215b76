// shape modelled on: min-p sampling's logits filter (Hugging Face's MinPLogitsWarper and vLLM's / SGLang's min_p sampling; the temperature step of their samplers before it): one block per row of a batch of next-token logits (rows ld floats apart), a shared-memory tree reduction for the row's largest logit, then every token whose probability falls below min_p times the largest is filtered (-FLT_MAX) and the rest are divided by the temperature, into rows ld_out apart, written from scratch for kt-tui's corpus
#include <cfloat>
#define BLOCK 256

__global__ void min_p_filter(const float *logits, int ld, int rows, int vocab, float temperature, float min_p, float *out, int ld_out)
{
    __shared__ float red[BLOCK];
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    const float *x = logits + (size_t)row * ld;
    float m = -FLT_MAX;
    for (int v = threadIdx.x; v < vocab; v += blockDim.x)
        m = fmaxf(m, x[v]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    // p_v / p_max = exp((x_v - max) / temperature) >= min_p
    const float cut = red[0] + temperature * logf(min_p);
    float *y = out + (size_t)row * ld_out;
    for (int v = threadIdx.x; v < vocab; v += blockDim.x)
        y[v] = x[v] >= cut ? x[v] / temperature : -FLT_MAX;
}
