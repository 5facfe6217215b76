// shape modelled on: exact row-wise Adagrad for the sparse rows of an embedding table (FBGEMM's split table-batched embeddings with rowwise_adagrad, as TorchRec and DLRM train): a warp per updated row, rows[t] naming the table row (rows ld floats apart) and its one momentum value, the gradient rows ld_grad apart; L2 weight decay added to the gradient, the mean of its squares over dim added to the momentum, then the row stepped by lr / (sqrt(momentum) + eps), written from scratch for kt-tui's corpus
__global__ void rowwise_adagrad(float *table, int ld, float *momentum, const int *rows, int nupd, const float *grad,
                                int ld_grad, int dim, float lr, float eps, float weight_decay)
{
    const int t = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (t >= nupd)
        return;
    const int r = rows[t];
    float *w = table + (size_t)r * ld;
    const float *g = grad + (size_t)t * ld_grad;
    float sq = 0.0f;
    for (int j = lane; j < dim; j += 32) {
        const float gj = g[j] + weight_decay * w[j];
        sq += gj * gj;
    }
    for (int off = 16; off > 0; off >>= 1)
        sq += __shfl_xor_sync(0xffffffffu, sq, off);
    const float m = momentum[r] + sq / dim;
    const float step = lr / (sqrtf(m) + eps);
    for (int j = lane; j < dim; j += 32)
        w[j] -= step * (g[j] + weight_decay * w[j]);
    if (lane == 0)
        momentum[r] = m;
}
