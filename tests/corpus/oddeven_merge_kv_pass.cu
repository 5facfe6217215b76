// shape modelled on: one pass of Batcher's odd-even merge sort on key-value pairs (the CUDA samples' sortingNetworks oddEvenMergeGlobal, Thrust's and ModernGPU's sorting-network passes, the iterative odd-even mergesort of Knuth's exercises): a thread per element, merges of size elements, comparators stride apart starting stride % (size / 2) into each run of 2 * stride, both partners inside one merge, unsigned keys with their values swapped when out of order, written from scratch for kt-tui's corpus
__global__ void oddeven_merge_pass(unsigned int *keys, unsigned int *vals, int n, int size, int stride)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int first = stride % (size / 2);
    const int y = x + stride;
    if (x < first || y >= n)
        return;
    if ((x - first) % (2 * stride) >= stride || x / size != y / size)
        return;
    const unsigned int a = keys[x];
    const unsigned int b = keys[y];
    if (a > b) {
        keys[x] = b;
        keys[y] = a;
        const unsigned int t = vals[x];
        vals[x] = vals[y];
        vals[y] = t;
    }
}
