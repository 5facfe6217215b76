// shape modelled on: the coalesced shared-memory transpose of NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++" (a TILE x TILE tile padded by one column against bank conflicts, blocks of TILE x ROWS threads each moving TILE / ROWS elements) applied as cuBLAS cgeam with transa = CUBLAS_OP_C computes it (B = A^H for a row-major rows x cols cuFloatComplex A whose rows lie lda elements apart, B cols x rows with rows ldb apart), the conjugate taken on the way in, written from scratch for kt-tui's corpus
#include <cuComplex.h>

#define TILE 32
#define ROWS 8

__global__ void conj_transpose(const cuFloatComplex *A, int lda, int rows, int cols, cuFloatComplex *B, int ldb)
{
    __shared__ cuFloatComplex tile[TILE][TILE + 1];
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = cuConjf(A[(size_t)(y + j) * lda + x]);
    __syncthreads();
    // B's row is A's column: the tile read down a column
    const int bx = blockIdx.y * TILE + threadIdx.x;
    const int by = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (bx < rows && by + j < cols)
            B[(size_t)(by + j) * ldb + bx] = tile[threadIdx.x][threadIdx.y + j];
}
