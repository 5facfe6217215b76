// shape modelled on: the multi-class hinge loss (PyTorch's multi_margin_loss / MultiMarginCriterion forward with p = 1 or 2, a margin and per-class weights, reduction none; the Crammer-Singer style SVM losses of cuML): a warp per sample (blockDim.y samples a block), scores rows ld apart, target[i] the true class, loss = sum over c != y of weight[y] * max(0, margin - x[y] + x[c])^p / dim by a shuffle reduction, written from scratch for kt-tui's corpus
__global__ void multi_margin_loss(const float *x, int ld, const long long *target, const float *weight, int nframe,
                                  int dim, int p, float margin, float *loss)
{
    const int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= nframe)
        return;
    const float *xr = x + (size_t)row * ld;
    const int y = (int)target[row];
    const float xy = xr[y];
    float sum = 0.0f;
    for (int c = threadIdx.x; c < dim; c += 32) {
        if (c == y)
            continue;
        const float z = margin - xy + xr[c];
        if (z > 0.0f)
            sum += p == 1 ? z : z * z;
    }
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (threadIdx.x == 0)
        loss[row] = sum * weight[y] / dim;
}
