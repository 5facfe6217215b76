// C = A * B for n x n row-major matrices.
// A block computes a (block_size_y * tile_size_y) x (block_size_x * tile_size_x) tile of C; each
// thread computes tile_size_y x tile_size_x elements of it, strided by the block size. Slabs of
// tile_k columns of A and tile_k rows of B are staged in shared memory.
#define TILE_ROWS (block_size_y * tile_size_y)
#define TILE_COLS (block_size_x * tile_size_x)

__global__ void matmul_tiled(float *C, const float *A, const float *B, int n) {
    __shared__ float sA[TILE_ROWS][tile_k];
    __shared__ float sB[tile_k][TILE_COLS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * block_size_x + tx;
    const int nthreads = block_size_x * block_size_y;
    const int row0 = blockIdx.y * TILE_ROWS, col0 = blockIdx.x * TILE_COLS;
    float acc[tile_size_y][tile_size_x];
#pragma unroll
    for (int i = 0; i < tile_size_y; i++)
#pragma unroll
        for (int j = 0; j < tile_size_x; j++)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < n; k0 += tile_k) {
        for (int e = tid; e < TILE_ROWS * tile_k; e += nthreads) {
            int r = e / tile_k, c = e % tile_k;
            int gr = row0 + r, gc = k0 + c;
            sA[r][c] = (gr < n && gc < n) ? A[gr * n + gc] : 0.0f;
        }
        for (int e = tid; e < tile_k * TILE_COLS; e += nthreads) {
            int r = e / TILE_COLS, c = e % TILE_COLS;
            int gr = k0 + r, gc = col0 + c;
            sB[r][c] = (gr < n && gc < n) ? B[gr * n + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < tile_k; k++) {
            float b[tile_size_x];
#pragma unroll
            for (int j = 0; j < tile_size_x; j++)
                b[j] = sB[k][tx + j * block_size_x];
#pragma unroll
            for (int i = 0; i < tile_size_y; i++) {
                float a = sA[ty + i * block_size_y][k];
#pragma unroll
                for (int j = 0; j < tile_size_x; j++)
                    acc[i][j] += a * b[j];
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < tile_size_y; i++) {
        int r = row0 + ty + i * block_size_y;
#pragma unroll
        for (int j = 0; j < tile_size_x; j++) {
            int c = col0 + tx + j * block_size_x;
            if (r < n && c < n)
                C[r * n + c] = acc[i][j];
        }
    }
}
