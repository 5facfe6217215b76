// shape modelled on: a sum by key over key-sorted records (Thrust's reduce_by_key, CUB's WarpReduce TailSegmentedReduce, cuDF's sort-based groupby sum, cuGraph's edge-to-vertex reductions): a thread per record, a warp's runs of equal keys summed by a shuffle scan that stops at each run's end, the run's first lane adding the sum atomically into sums[key], keys below the length of sums, written from scratch for kt-tui's corpus
__global__ void reduce_by_key_warp(const int *keys, const float *vals, int n, float *sums)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const bool live = i < n;
    const int key = live ? keys[i] : -1;
    float v = live ? vals[i] : 0.0f;
    const int right = __shfl_down_sync(0xffffffffu, key, 1);
    // stop: the window [lane, lane + d) holds the end of a run
    bool stop = lane == 31 || right != key;
    for (int d = 1; d < 32; d <<= 1) {
        const float ov = __shfl_down_sync(0xffffffffu, v, d);
        const bool os = __shfl_down_sync(0xffffffffu, stop, d);
        if (!stop) {
            v += ov;
            stop = os;
        }
    }
    const int left = __shfl_up_sync(0xffffffffu, key, 1);
    if (live && (lane == 0 || left != key))
        atomicAdd(&sums[key], v);
}
