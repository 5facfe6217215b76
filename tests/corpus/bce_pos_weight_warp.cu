// shape modelled on: multi-label binary cross-entropy with logits and a per-class pos_weight (PyTorch's BCEWithLogitsLoss with pos_weight, as used for Open Images and ChestX-ray14 classifiers), reduced to a mean per sample: a warp per sample, logits rows ld floats apart, soft targets rows ldt apart, the lanes striding over the classes, shuffle sums, lane 0 writing the row's mean, written from scratch for kt-tui's corpus
__global__ void bce_logits_rows(const float *logits, int ld, const float *targets, int ldt, const float *pos_weight, int rows, int classes, float *loss)
{
    const int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (r >= rows)
        return;
    float sum = 0.0f;
    for (int c = lane; c < classes; c += 32) {
        const float x = logits[(size_t)r * ld + c];
        const float t = targets[(size_t)r * ldt + c];
        // log(1 + e^-x) without overflow
        const float softplus_neg = log1pf(expf(-fabsf(x))) + fmaxf(-x, 0.0f);
        sum += (1.0f - t) * x + (1.0f + (pos_weight[c] - 1.0f) * t) * softplus_neg;
    }
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0)
        loss[r] = sum / classes;
}
