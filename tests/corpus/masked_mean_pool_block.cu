// shape modelled on: the masked mean pooling of sentence-embedding models (sentence-transformers' mean pooling over a padded batch: sequence b's first lengths[b] token vectors averaged, the padding ignored; sequences max_len * hidden apart), one block per sequence, threads over the hidden features, written from scratch for kt-tui's corpus
__global__ void masked_mean_pool(const float *h, const int *lengths, int batch, int max_len, int hidden, float *out)
{
    const int b = blockIdx.x;
    if (b >= batch)
        return;
    const int len = lengths[b];
    const float *hb = h + (size_t)b * max_len * hidden;
    const float inv = len > 0 ? 1.0f / len : 0.0f;
    for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
        float s = 0.0f;
        for (int t = 0; t < len; ++t)
            s += hb[(size_t)t * hidden + j];
        out[(size_t)b * hidden + j] = s * inv;
    }
}
