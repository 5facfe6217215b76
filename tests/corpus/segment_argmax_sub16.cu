// shape modelled on: the CSR segment reductions of torch_scatter (segment_csr with reduce = "max", which also returns each maximum's position: segment s is src[indptr[s]] .. src[indptr[s + 1] - 1], an empty segment gives 0 and position -1) computed as CUB's WarpReduce with LOGICAL_WARP_THREADS = 16 lays the work out: one 16-lane group per segment, its lanes striding the segment, then a shuffle tree of width 16 merging (value, position) pairs with ties to the lower position, written from scratch for kt-tui's corpus
#define GROUP 16

__global__ void segment_argmax(const double *src, const int *indptr, int nseg, double *out, int *arg_out)
{
    const int seg = (blockIdx.x * blockDim.x + threadIdx.x) / GROUP;
    const int lane = threadIdx.x % GROUP;
    // groups past the last segment stay for the shuffles with an empty range
    const bool live = seg < nseg;
    const int begin = live ? indptr[seg] : 0;
    const int end = live ? indptr[seg + 1] : 0;
    double best = -INFINITY;
    int arg = 0x7fffffff;
    for (int i = begin + lane; i < end; i += GROUP) {
        const double v = src[i];
        if (v > best) {
            best = v;
            arg = i;
        }
    }
    for (int offset = GROUP / 2; offset > 0; offset /= 2) {
        const double other = __shfl_down_sync(0xffffffffu, best, offset, GROUP);
        const int other_arg = __shfl_down_sync(0xffffffffu, arg, offset, GROUP);
        if (other > best || (other == best && other_arg < arg)) {
            best = other;
            arg = other_arg;
        }
    }
    if (live && lane == 0) {
        out[seg] = end > begin ? best : 0.0;
        arg_out[seg] = end > begin ? arg : -1;
    }
}
