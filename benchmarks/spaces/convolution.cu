// 2-D convolution with a 15 x 15 filter: out[y][x] = sum over i, j of in[y + i][x + j] * filter[i][j].
// out is h x w; in is (h + 14) x (w + 14). A block stages the input tile it needs in shared memory
// (padded by use_padding to avoid bank conflicts); each thread computes tile_size_y x tile_size_x
// outputs strided by the block size. read_only loads the filter through the read-only cache.
#define FH 15
#define FW 15
#define TW (block_size_x * tile_size_x)
#define TH (block_size_y * tile_size_y)
#define SH_W (TW + FW - 1 + use_padding)

#if read_only
#define LOAD_FILTER(i) __ldg(&filter[i])
#else
#define LOAD_FILTER(i) filter[i]
#endif

__global__ void convolution(float *out, const float *__restrict__ in, const float *__restrict__ filter, int w, int h) {
    __shared__ float sh[TH + FH - 1][SH_W];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * block_size_x + tx;
    const int nthreads = block_size_x * block_size_y;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    const int in_w = w + FW - 1, in_h = h + FH - 1;
    for (int e = tid; e < (TH + FH - 1) * (TW + FW - 1); e += nthreads) {
        int r = e / (TW + FW - 1), c = e % (TW + FW - 1);
        int gy = y0 + r, gx = x0 + c;
        sh[r][c] = (gy < in_h && gx < in_w) ? in[gy * in_w + gx] : 0.0f;
    }
    __syncthreads();
    float acc[tile_size_y][tile_size_x];
#pragma unroll
    for (int i = 0; i < tile_size_y; i++)
#pragma unroll
        for (int j = 0; j < tile_size_x; j++)
            acc[i][j] = 0.0f;
    for (int fi = 0; fi < FH; fi++) {
#pragma unroll
        for (int fj = 0; fj < FW; fj++) {
            float f = LOAD_FILTER(fi * FW + fj);
#pragma unroll
            for (int i = 0; i < tile_size_y; i++)
#pragma unroll
                for (int j = 0; j < tile_size_x; j++)
                    acc[i][j] += sh[ty + i * block_size_y + fi][tx + j * block_size_x + fj] * f;
        }
    }
#pragma unroll
    for (int i = 0; i < tile_size_y; i++) {
        int y = y0 + ty + i * block_size_y;
#pragma unroll
        for (int j = 0; j < tile_size_x; j++) {
            int x = x0 + tx + j * block_size_x;
            if (y < h && x < w)
                out[y * w + x] = acc[i][j];
        }
    }
}
