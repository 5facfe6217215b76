// shape modelled on: the forward rasterizer of 3-D Gaussian splatting (graphdeco-inria's diff-gaussian-rasterization renderCUDA: one BLOCK_X x BLOCK_Y block per image tile, ranges[tile] the (start, end) of the tile's depth-sorted splats in point_list, the splats fetched a block-sized batch at a time into shared memory, each pixel compositing them front to back until its transmittance falls below 1e-4 and the whole tile stops once every pixel is done), 2-D means as float2, conic and opacity as float4, CHANNELS colours a splat, planar output, written from scratch for kt-tui's corpus
#define BLOCK_X 16
#define BLOCK_Y 16
#define BLOCK_SIZE (BLOCK_X * BLOCK_Y)
#define CHANNELS 3

__global__ void render_tiles(const uint2 *ranges, const unsigned int *point_list, int W, int H, const float2 *means2d,
                             const float *colors, const float4 *conic_opacity, const float *bg, float *final_T,
                             int *n_contrib, float *out_color)
{
    __shared__ int batch_id[BLOCK_SIZE];
    __shared__ float2 batch_xy[BLOCK_SIZE];
    __shared__ float4 batch_co[BLOCK_SIZE];
    const int tiles_x = (W + BLOCK_X - 1) / BLOCK_X;
    const uint2 range = ranges[blockIdx.y * tiles_x + blockIdx.x];
    const int px = blockIdx.x * BLOCK_X + threadIdx.x;
    const int py = blockIdx.y * BLOCK_Y + threadIdx.y;
    const int rank = threadIdx.y * BLOCK_X + threadIdx.x;
    const bool inside = px < W && py < H;
    bool done = !inside;
    const int todo = range.y > range.x ? (int)(range.y - range.x) : 0;
    const int rounds = (todo + BLOCK_SIZE - 1) / BLOCK_SIZE;
    float T = 1.0f;
    float C[CHANNELS] = {0.0f};
    int contributor = 0;
    int last = 0;
    for (int r = 0; r < rounds; ++r) {
        if (__syncthreads_count(done) == BLOCK_SIZE)
            break;
        const int k = r * BLOCK_SIZE + rank;
        if (k < todo) {
            const int id = point_list[range.x + k];
            batch_id[rank] = id;
            batch_xy[rank] = means2d[id];
            batch_co[rank] = conic_opacity[id];
        }
        __syncthreads();
        const int count = min(BLOCK_SIZE, todo - r * BLOCK_SIZE);
        for (int j = 0; !done && j < count; ++j) {
            ++contributor;
            const float dx = batch_xy[j].x - (float)px;
            const float dy = batch_xy[j].y - (float)py;
            const float4 co = batch_co[j];
            const float power = -0.5f * (co.x * dx * dx + co.z * dy * dy) - co.y * dx * dy;
            if (power > 0.0f)
                continue;
            const float alpha = fminf(0.99f, co.w * expf(power));
            if (alpha < 1.0f / 255.0f)
                continue;
            const float next_T = T * (1.0f - alpha);
            if (next_T < 0.0001f) {
                done = true;
                continue;
            }
            for (int ch = 0; ch < CHANNELS; ++ch)
                C[ch] += colors[batch_id[j] * CHANNELS + ch] * alpha * T;
            T = next_T;
            last = contributor;
        }
    }
    if (inside) {
        const int pix = py * W + px;
        final_T[pix] = T;
        n_contrib[pix] = last;
        for (int ch = 0; ch < CHANNELS; ++ch)
            out_color[ch * H * W + pix] = C[ch] + T * bg[ch];
    }
}
