// shape modelled on: cuSpatial's polyline lengths (polylines as offsets into one array of x-y points: polyline p's points offsets[p] .. offsets[p + 1] - 1, its length the sum of its segments), one warp per polyline with a shuffle sum in double, written from scratch for kt-tui's corpus
__global__ void polyline_length(const float2 *points, const int *offsets, int npolys, double *length)
{
    const int p = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (p >= npolys)
        return;
    const int begin = offsets[p];
    const int end = offsets[p + 1];
    double s = 0.0;
    for (int k = begin + 1 + lane; k < end; k += 32) {
        const double dx = (double)points[k].x - points[k - 1].x;
        const double dy = (double)points[k].y - points[k - 1].y;
        s += sqrt(dx * dx + dy * dy);
    }
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffff, s, o);
    if (lane == 0)
        length[p] = s;
}
