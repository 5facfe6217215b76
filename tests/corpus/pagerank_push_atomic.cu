// shape modelled on: the push form of a PageRank iteration (cuGraph's and Gunrock's push-based PageRank, Hornet's pagerank push, the CSR out-edge scatter of graph frameworks): a thread per vertex, out-edges delimited by CSR row offsets, each vertex's damped rank divided evenly by its out-degree and atomically added to every neighbour's next rank, dangling vertices left to the host's teleport term, written from scratch for kt-tui's corpus
__global__ void pagerank_push(const int *row_ptr, const int *col_idx, const float *rank, int n, float damping, float *next)
{
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n)
        return;
    const int begin = row_ptr[v];
    const int end = row_ptr[v + 1];
    if (end == begin)
        return;
    const float share = damping * rank[v] / (float)(end - begin);
    for (int e = begin; e < end; ++e)
        atomicAdd(&next[col_idx[e]], share);
}
