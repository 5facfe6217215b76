// shape modelled on: the Jaccard similarity of a graph's edges (RAPIDS cuGraph's jaccard and overlap coefficients, Gunrock's and nvGRAPH's edge similarity): a group of GROUP_LANES = 4 lanes (a #define) per edge (u, v) of a COO list, each lane taking every fourth neighbour of u and binary-searching it in v's sorted CSR neighbour list, the group's counts summed by shuffles within the group, |N(u) & N(v)| / |N(u) | N(v)| per edge (0 where both lists are empty), written from scratch for kt-tui's corpus
#define GROUP_LANES 4

__global__ void jaccard_edges(const int *row_ptr, const int *cols, int nverts, const int *src, const int *dst,
                              int nedges, float *weight)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int e = tid / GROUP_LANES;
    const int g = tid % GROUP_LANES;
    if (e >= nedges)
        return;
    const int u = src[e];
    const int v = dst[e];
    const int ub = row_ptr[u], ue = row_ptr[u + 1];
    const int vb = row_ptr[v], ve = row_ptr[v + 1];
    int common = 0;
    for (int k = ub + g; k < ue; k += GROUP_LANES) {
        const int x = cols[k];
        int lo = vb, hi = ve;
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (cols[mid] < x)
                lo = mid + 1;
            else
                hi = mid;
        }
        common += lo < ve && cols[lo] == x;
    }
    const unsigned int group = 0xfu << (threadIdx.x & 28);
    common += __shfl_xor_sync(group, common, 1);
    common += __shfl_xor_sync(group, common, 2);
    if (g == 0) {
        const int uni = (ue - ub) + (ve - vb) - common;
        weight[e] = uni > 0 ? (float)common / (float)uni : 0.0f;
    }
}
