// shape modelled on: sub-warp row reductions written with cooperative groups (cg::tiled_partition<N> and cg::reduce, as the CUDA samples' reduction and cuML's and FAISS's L2 normalisation of short rows use them): a tile of ROW_TILE threads per row of dim floats, the rows ld floats apart, each row's sum of squares reduced over the tile and the row written scaled to unit L2 norm (by 1 / max(norm, eps)) to out, rows ld_out apart, written from scratch for kt-tui's corpus
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

#define ROW_TILE 8

__global__ void l2_normalize_rows(const float *in, int ld, int rows, int dim, float eps, float *out, int ld_out)
{
    const cg::thread_block_tile<ROW_TILE> tile = cg::tiled_partition<ROW_TILE>(cg::this_thread_block());
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / ROW_TILE;
    if (row >= rows)
        return;
    const float *r = in + (size_t)row * ld;
    float sq = 0.0f;
    for (int k = tile.thread_rank(); k < dim; k += ROW_TILE)
        sq += r[k] * r[k];
    sq = cg::reduce(tile, sq, cg::plus<float>());
    const float scale = 1.0f / fmaxf(sqrtf(sq), eps);
    float *o = out + (size_t)row * ld_out;
    for (int k = tile.thread_rank(); k < dim; k += ROW_TILE)
        o[k] = r[k] * scale;
}
