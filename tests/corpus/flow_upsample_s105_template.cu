// shape modelled on: expanding the coarse flow field of hardware optical flow (NVIDIA's Optical Flow SDK writes one S10.5 fixed-point short2 vector per GRID x GRID block, ceil(width / GRID) per row, rows flow_pitch vectors apart; its samples' NvOFUtils upsample it to a vector per pixel) to per-pixel float2 vectors in pixels, nearest neighbour, the grid size a template parameter with explicit instantiations, one thread per output pixel on a 2-D grid, written from scratch for kt-tui's corpus
template <int GRID>
__global__ void upsample_flow(const short2 *flow, int flow_pitch, int width, int height, float2 *out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const short2 v = flow[(size_t)(y / GRID) * flow_pitch + x / GRID];
    out[(size_t)y * width + x] = make_float2(v.x * (1.0f / 32.0f), v.y * (1.0f / 32.0f));
}

template __global__ void upsample_flow<1>(const short2 *, int, int, int, float2 *);
template __global__ void upsample_flow<2>(const short2 *, int, int, int, float2 *);
template __global__ void upsample_flow<4>(const short2 *, int, int, int, float2 *);
