// shape modelled on: torch.bucketize / searchsorted (boundaries sorted ascending; value v goes to the first bucket b with v <= edges[b], nedges + 1 buckets) with a count per bucket, ITEMS consecutive values per thread as CUB's ITEMS_PER_THREAD tuning parameter, a grid-stride loop, written from scratch for kt-tui's corpus
template <int ITEMS>
__global__ void bucketize(const float *x, int n, const float *edges, int nedges, int *bucket, unsigned int *counts)
{
    const int step = gridDim.x * blockDim.x * ITEMS;
    for (int base = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS; base < n; base += step) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = base + k;
            if (i >= n)
                break;
            const float v = x[i];
            int lo = 0;
            int hi = nedges;
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (edges[mid] < v)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            bucket[i] = lo;
            atomicAdd(&counts[lo], 1u);
        }
    }
}
