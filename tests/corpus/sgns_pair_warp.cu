// shape modelled on: skip-gram negative-sampling training of word2vec (word2vec.c's update as its GPU ports run it, one (center, context, label) pair at a time: g = lr * (label - sigmoid(u . v)) with the dot clipped to +-6, the center row's gradient g * v and the context row's g * u), the gradients accumulated into separate arrays the way a sparse embedding backward does, one warp per pair with a xor-shuffle dot, atomicAdd for rows shared by pairs, written from scratch for kt-tui's corpus
__global__ void sgns_grad(const float *syn0, const float *syn1, const int *center, const int *context,
                          const unsigned char *label, int npairs, int dim, float lr, float *grad0, float *grad1)
{
    const int p = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (p >= npairs)
        return;
    const size_t cu = (size_t)center[p] * dim;
    const size_t cv = (size_t)context[p] * dim;
    float dot = 0.0f;
    for (int i = lane; i < dim; i += 32)
        dot += syn0[cu + i] * syn1[cv + i];
    for (int off = 16; off > 0; off /= 2)
        dot += __shfl_xor_sync(0xffffffffu, dot, off);
    const float x = fminf(fmaxf(dot, -6.0f), 6.0f);
    const float g = lr * ((float)label[p] - 1.0f / (1.0f + expf(-x)));
    for (int i = lane; i < dim; i += 32) {
        atomicAdd(&grad0[cu + i], g * syn1[cv + i]);
        atomicAdd(&grad1[cv + i], g * syn0[cu + i]);
    }
}
