// shape modelled on: PyTorch's embedding backward on its atomic path (aten/src/ATen/native/cuda/Embedding.cu: grad_weight[indices[i]] += grad_output[i] for every token i whose index is not padding_idx, int64 indices, rows repeating so the adds must be atomic), one block per token whose threads stride the embedding dimension, written from scratch for kt-tui's corpus
__global__ void embedding_backward_atomic(float *grad_weight, const float *grad_output, const long long *indices,
                                          long long num_indices, int embedding_dim, long long padding_idx)
{
    const long long i = blockIdx.x;
    if (i >= num_indices)
        return;
    const long long w = indices[i];
    if (w == padding_idx)
        return;
    float *dst = grad_weight + w * embedding_dim;
    const float *src = grad_output + i * embedding_dim;
    for (int d = threadIdx.x; d < embedding_dim; d += blockDim.x)
        atomicAdd(&dst[d], src[d]);
}
