// shape modelled on: the X stage of an FX radio-telescope correlator (xGPU and the correlators of LOFAR / MWA: each baseline (i, j), i <= j, of nant antennas accumulates x_i x_j* over nchan channels; baselines in the order (0,0) (0,1) ... (0,nant-1) (1,1) ...), one warp per baseline with shuffle sums, written from scratch for kt-tui's corpus
__global__ void correlate(const float2 *x, int nant, int nchan, float2 *vis)
{
    const int bl = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (bl >= nant * (nant + 1) / 2)
        return;
    int i = 0;
    int rest = bl;
    while (rest >= nant - i) {
        rest -= nant - i;
        ++i;
    }
    const int j = i + rest;
    const float2 *a = x + (size_t)i * nchan;
    const float2 *c = x + (size_t)j * nchan;
    float re = 0.0f, im = 0.0f;
    for (int ch = lane; ch < nchan; ch += 32) {
        re += a[ch].x * c[ch].x + a[ch].y * c[ch].y;
        im += a[ch].y * c[ch].x - a[ch].x * c[ch].y;
    }
    for (int o = 16; o > 0; o >>= 1) {
        re += __shfl_down_sync(0xffffffff, re, o);
        im += __shfl_down_sync(0xffffffff, im, o);
    }
    if (lane == 0)
        vis[bl] = make_float2(re, im);
}
