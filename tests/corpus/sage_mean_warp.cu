// shape modelled on: GNN neighbour aggregation as a sparse x dense product (DGL / PyG SpMM, GE-SpMM's CSR kernels: one warp per destination node, its lanes across the feature columns, a loop over the node's in-edges in CSR order; GraphSAGE's mean aggregator divides by the in-degree, 0 for a node without edges), written from scratch for kt-tui's corpus
__global__ void sage_mean_aggregate(const int *indptr, const int *indices, const float *feat, float *out, int num_dst,
                                    int feat_len)
{
    const int warp_id = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (warp_id >= num_dst)
        return;
    const int start = indptr[warp_id];
    const int end = indptr[warp_id + 1];
    const float inv_deg = end > start ? 1.0f / (float)(end - start) : 0.0f;
    for (int f = lane; f < feat_len; f += 32) {
        float acc = 0.0f;
        for (int e = start; e < end; e++)
            acc += feat[(size_t)indices[e] * feat_len + f];
        out[(size_t)warp_id * feat_len + f] = acc * inv_deg;
    }
}
