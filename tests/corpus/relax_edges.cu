// shape modelled on: edge-parallel Bellman-Ford relaxation of GPU graph codes (LonestarGPU / Gunrock style: edge e offers dist[src[e]] + w[e] to dst[e] with atomicMin; unreached vertices hold INF), written from scratch for kt-tui's corpus
#define INF 0x3fffffff
__global__ void relax_edges(const int *edge_src, const int *edge_dst, const int *edge_w, const int *dist_in,
                            int *dist_out, int num_edges)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= num_edges)
        return;
    int du = dist_in[edge_src[e]];
    if (du >= INF)
        return;
    atomicMin(&dist_out[edge_dst[e]], du + edge_w[e]);
}
