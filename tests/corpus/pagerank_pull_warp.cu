// shape modelled on: the pull step of PageRank in GPU graph frameworks (Gunrock's and cuGraph's pull-based iteration over the in-edges in CSR: rank'[v] = (1 - d) / n + d sum over in-neighbours u of rank[u] / outdeg[u], dangling sources skipped), one warp per vertex with a shuffle reduction, written from scratch for kt-tui's corpus
__global__ void pagerank_pull(const int *in_ptr, const int *in_src, const float *rank, const int *out_degree, int nvertices,
                              float damping, float *rank_next)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (warp >= nvertices)
        return;
    float s = 0.0f;
    for (int e = in_ptr[warp] + lane; e < in_ptr[warp + 1]; e += 32) {
        const int u = in_src[e];
        const int d = out_degree[u];
        if (d > 0)
            s += rank[u] / d;
    }
    for (int off = 16; off > 0; off /= 2)
        s += __shfl_down_sync(0xffffffff, s, off);
    if (lane == 0)
        rank_next[warp] = (1.0f - damping) / nvertices + damping * s;
}
