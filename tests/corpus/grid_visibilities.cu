// shape modelled on: the gridding step of radio-interferometric imagers and NUFFT spreaders (WSClean / IDG / cuFINUFFT-style: each complex visibility, weighted by a separable taper, is added into the support x support cells around its (u, v) position in cell units on a grid_size x grid_size grid; cells off the grid are skipped), one thread per visibility with atomicAdd on the real and imaginary parts, written from scratch for kt-tui's corpus
__global__ void grid_visibilities(int nvis, const float *uu, const float *vv, const float2 *vis, const float *taper,
                                  int support, int grid_size, float2 *grid)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nvis)
        return;
    const int u0 = __float2int_rd(uu[i]) - support / 2;
    const int v0 = __float2int_rd(vv[i]) - support / 2;
    const float2 z = vis[i];
    for (int dv = 0; dv < support; dv++) {
        const int gv = v0 + dv;
        if (gv < 0 || gv >= grid_size)
            continue;
        for (int du = 0; du < support; du++) {
            const int gu = u0 + du;
            if (gu < 0 || gu >= grid_size)
                continue;
            const float w = taper[dv] * taper[du];
            float2 *cell = &grid[(size_t)gv * grid_size + gu];
            atomicAdd(&cell->x, w * z.x);
            atomicAdd(&cell->y, w * z.y);
        }
    }
}
