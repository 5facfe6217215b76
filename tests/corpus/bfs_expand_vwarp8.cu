// shape modelled on: the level-synchronous expansion step of GPU breadth-first search with virtual warps (Hong, Kim, Oguntebi and Olukotun's "Accelerating CUDA Graph Algorithms at Maximum Warp", with levels kept as SHOC's and Rodinia's BFS keep them and vertices claimed by atomicCAS as Gunrock's advance does: every vertex at level cur visits its CSR neighbours, each unvisited one (level -1) is claimed for level cur + 1 by exactly one thread, which counts it), one virtual warp of VW = 8 lanes per vertex striding its edge list, written from scratch for kt-tui's corpus
#define VW 8
#define UNVISITED -1

__global__ void bfs_expand(const int *row_ptr, const int *col_idx, int nv, int *levels, int cur, int *discovered)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = t / VW;
    const int lane = t % VW;
    if (v >= nv || levels[v] != cur)
        return;
    const int end = row_ptr[v + 1];
    int found = 0;
    for (int e = row_ptr[v] + lane; e < end; e += VW) {
        const int u = col_idx[e];
        if (levels[u] == UNVISITED && atomicCAS(&levels[u], UNVISITED, cur + 1) == UNVISITED)
            ++found;
    }
    if (found)
        atomicAdd(discovered, found);
}
