// shape modelled on: cuDF's valid_if (a column's validity bitmask built from a predicate, as Arrow lays it out: bit i % 32 of 32-bit word i / 32 set where element i is valid, (n + 31) / 32 words, the valid elements counted per block and then added once), here over a strided view of doubles (a column of a row-major table, element i at i * stride) valid where above a threshold: each warp votes its 32 elements with __ballot_sync, lane 0 stores the word and adds its popcount to the block's shared count, thread 0 adds that to the total with one atomicAdd, written from scratch for kt-tui's corpus
__global__ void valid_if_above(const double *col, int stride, int n, double threshold, unsigned int *mask,
                               int *valid_count)
{
    __shared__ int block_valid;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % 32;
    if (threadIdx.x == 0)
        block_valid = 0;
    __syncthreads();
    const bool valid = i < n && col[(size_t)i * stride] > threshold;
    const unsigned int word = __ballot_sync(0xffffffffu, valid);
    if (lane == 0 && i < n) {
        mask[i / 32] = word;
        atomicAdd(&block_valid, __popc(word));
    }
    __syncthreads();
    if (threadIdx.x == 0 && block_valid > 0)
        atomicAdd(valid_count, block_valid);
}
