// Sum of n floats into out[0] (which must start at zero). A block covers
// block_size_x * items_per_thread * vector consecutive elements; each thread loads `vector`
// elements at a time (float2 / float4 when vector is 2 / 4). The block's partial sums are
// combined with warp shuffles (use_shuffle) or a shared-memory tree, then added atomically.
__global__ void reduce_sum(float *out, const float *in, int n) {
    const int tid = threadIdx.x;
    const long base = (long)blockIdx.x * block_size_x * items_per_thread * vector;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < items_per_thread; k++) {
        long i = base + ((long)k * block_size_x + tid) * vector;
#if vector == 4
        if (i + 3 < n) {
            float4 v = *reinterpret_cast<const float4 *>(in + i);
            sum += (v.x + v.y) + (v.z + v.w);
        } else {
            for (long e = i; e < n && e < i + 4; e++) sum += in[e];
        }
#elif vector == 2
        if (i + 1 < n) {
            float2 v = *reinterpret_cast<const float2 *>(in + i);
            sum += v.x + v.y;
        } else if (i < n) {
            sum += in[i];
        }
#else
        if (i < n) sum += in[i];
#endif
    }
#if use_shuffle
    __shared__ float warp_sums[(block_size_x + 31) / 32];
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if ((tid & 31) == 0) warp_sums[tid >> 5] = sum;
    __syncthreads();
    if (tid < 32) {
        sum = tid < (block_size_x + 31) / 32 ? warp_sums[tid] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
    }
#else
    __shared__ float partial[block_size_x];
    partial[tid] = sum;
    __syncthreads();
    int half = 1;
    while (half * 2 < block_size_x) half *= 2;
    for (int s = half; s > 0; s >>= 1) {
        if (tid < s && tid + s < block_size_x) partial[tid] += partial[tid + s];
        __syncthreads();
    }
    sum = partial[0];
#endif
    if (tid == 0) atomicAdd(out, sum);
}
