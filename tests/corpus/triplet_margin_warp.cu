// shape modelled on: the triplet margin loss over mined triplets (FaceNet's triplet loss; PyTorch's TripletMarginLoss with p = 2, its eps and its swap option; the online-mining losses of metric-learning libraries): each triplet three row indices (anchor, positive, negative) into an embedding table of rows ld floats apart, a warp per triplet, the lanes striding over dim, the squared distances summed by shuffles, loss = max(d(a, p) - d(a, n) + margin, 0), with swap the negative's distance the smaller of d(a, n) and d(p, n), written from scratch for kt-tui's corpus
__device__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__global__ void triplet_margin(const float *emb, int ld, int dim, const int *triplets, int ntrip, float margin, int swap, float *loss)
{
    const int t = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (t >= ntrip)
        return;
    const float *a = emb + (size_t)triplets[3 * t] * ld;
    const float *p = emb + (size_t)triplets[3 * t + 1] * ld;
    const float *n = emb + (size_t)triplets[3 * t + 2] * ld;
    const float eps = 1e-6f;
    float ap = 0.0f, an = 0.0f, pn = 0.0f;
    for (int j = lane; j < dim; j += 32) {
        const float dap = a[j] - p[j] + eps, dan = a[j] - n[j] + eps, dpn = p[j] - n[j] + eps;
        ap += dap * dap;
        an += dan * dan;
        pn += dpn * dpn;
    }
    const float d_ap = sqrtf(warp_sum(ap));
    float d_an = sqrtf(warp_sum(an));
    if (swap)
        d_an = fminf(d_an, sqrtf(warp_sum(pn)));
    if (lane == 0)
        loss[t] = fmaxf(d_ap - d_an + margin, 0.0f);
}
