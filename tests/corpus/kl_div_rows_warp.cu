// shape modelled on: the Kullback-Leibler divergence of knowledge distillation and label smoothing (PyTorch's kl_div with log-probability inputs and probability targets, reduction summed per sample; Hinton et al.'s distillation loss, DistilBERT's): a warp per sample, log-probability rows ld floats apart, target probability rows ldp apart, p * (log p - log q) with 0 where p is 0, the lanes striding over the classes, shuffle sums, lane 0 writing the row's sum, written from scratch for kt-tui's corpus
__global__ void kl_div_rows(const float *logq, int ld, const float *p, int ldp, int rows, int classes, float *kl)
{
    const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (r >= rows)
        return;
    float sum = 0.0f;
    for (int c = lane; c < classes; c += 32) {
        const float pc = p[(size_t)r * ldp + c];
        if (pc > 0.0f)
            sum += pc * (logf(pc) - logq[(size_t)r * ld + c]);
    }
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0)
        kl[r] = sum;
}
