// shape modelled on: a segmented min and max reduction over segments given by separate begin and end offsets (CUB's DeviceSegmentedReduce::Min / Max with d_begin_offsets and d_end_offsets, which may leave gaps between segments): a warp per segment, lanes striding over values[begin[s] .. end[s]), the pair reduced by butterfly shuffles, +inf / -inf for an empty segment, written from scratch for kt-tui's corpus
__global__ void segmented_minmax(const float *values, const int *begin, const int *end, int nsegs, float *seg_min,
                                 float *seg_max)
{
    const int s = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (s >= nsegs)
        return;
    float lo = __int_as_float(0x7f800000);
    float hi = -lo;
    for (int k = begin[s] + lane; k < end[s]; k += 32) {
        const float v = values[k];
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
    }
    for (int off = 16; off > 0; off >>= 1) {
        lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, off));
        hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, off));
    }
    if (lane == 0) {
        seg_min[s] = lo;
        seg_max[s] = hi;
    }
}
