// shape modelled on: DGL's edge_softmax on a graph stored as CSR by destination node (GAT attention: each node's incoming edge scores normalised, out[e] = exp(score[e] - max) / sum over the node's edges), one warp per node with shuffle reductions, written from scratch for kt-tui's corpus
__global__ void edge_softmax_csr(int num_nodes, const int *indptr, const float *score, float *out)
{
    const int node = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (node >= num_nodes)
        return;
    const int begin = indptr[node];
    const int end = indptr[node + 1];
    float best = -INFINITY;
    for (int e = begin + lane; e < end; e += 32)
        best = fmaxf(best, score[e]);
    for (int off = 16; off > 0; off >>= 1)
        best = fmaxf(best, __shfl_xor_sync(0xffffffff, best, off));
    float sum = 0.0f;
    for (int e = begin + lane; e < end; e += 32)
        sum += expf(score[e] - best);
    for (int off = 16; off > 0; off >>= 1)
        sum += __shfl_xor_sync(0xffffffff, sum, off);
    for (int e = begin + lane; e < end; e += 32)
        out[e] = expf(score[e] - best) / sum;
}
