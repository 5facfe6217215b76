// shape modelled on: exact triangle counting over a CSR graph by list intersection with a warp per vertex (Bisson and Fatica's "High Performance Exact Triangle Counting on GPUs"; the TC primitives of cuGraph and Gunrock): for vertex u and each neighbour v > u, the lanes take v's neighbours w > v and binary-search each in u's sorted list, the warp's count summed by shuffles, the block's warps added into a static shared counter and the block's total into one 64-bit counter by atomicAdd, written from scratch for kt-tui's corpus
__global__ void triangle_count(const int *row_ptr, const int *col_idx, int nv, unsigned long long *total)
{
    __shared__ unsigned long long block_total;
    if (threadIdx.x == 0)
        block_total = 0;
    __syncthreads();
    const int u = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    unsigned long long count = 0;
    if (u < nv) {
        const int ub = row_ptr[u], ue = row_ptr[u + 1];
        for (int j = ub; j < ue; ++j) {
            const int v = col_idx[j];
            if (v <= u)
                continue;
            for (int k = row_ptr[v] + lane; k < row_ptr[v + 1]; k += 32) {
                const int w = col_idx[k];
                int lo = ub, hi = ue;
                while (lo < hi) {
                    const int mid = (lo + hi) / 2;
                    if (col_idx[mid] < w)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                count += w > v && lo < ue && col_idx[lo] == w;
            }
        }
    }
    for (int off = 16; off > 0; off /= 2)
        count += __shfl_down_sync(0xffffffffu, count, off);
    if (lane == 0 && count > 0)
        atomicAdd(&block_total, count);
    __syncthreads();
    if (threadIdx.x == 0 && block_total > 0)
        atomicAdd(total, block_total);
}
