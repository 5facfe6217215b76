// shape modelled on: CUB cub::DeviceSegmentedReduce (one thread block per segment, begin/end offsets, a shared-memory block reduction), written from scratch for kt-tui's corpus
#define THREADS 256
__global__ void segmented_sum(const float *values, const int *seg_begin, const int *seg_end, float *sums,
                              int num_segments)
{
    __shared__ float partial[THREADS];
    if (blockIdx.x < num_segments) {
        int begin = seg_begin[blockIdx.x];
        int end = seg_end[blockIdx.x];
        float acc = 0.0f;
        for (int i = begin + threadIdx.x; i < end; i += blockDim.x)
            acc += values[i];
        partial[threadIdx.x] = acc;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s)
                partial[threadIdx.x] += partial[threadIdx.x + s];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            sums[blockIdx.x] = partial[0];
    }
}
