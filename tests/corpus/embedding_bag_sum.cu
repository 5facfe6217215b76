// shape modelled on: PyTorch nn.EmbeddingBag (mode="sum" with per_sample_weights, include_last_offset: bag b sums the weight rows indices[offsets[b]] .. indices[offsets[b + 1] - 1]), as one block per bag with the threads across the embedding, written from scratch for kt-tui's corpus
__global__ void embedding_bag_sum(const long long *indices, const long long *offsets, const float *weight,
                                  const float *per_sample_weights, float *output, int num_bags, int embedding_dim)
{
    int bag = blockIdx.x;
    if (bag >= num_bags)
        return;
    long long begin = offsets[bag];
    long long end = offsets[bag + 1];
    for (int d = threadIdx.x; d < embedding_dim; d += blockDim.x) {
        float acc = 0.0f;
        for (long long k = begin; k < end; k++)
            acc += per_sample_weights[k] * weight[indices[k] * embedding_dim + d];
        output[(size_t)bag * embedding_dim + d] = acc;
    }
}
