// Follows the shared-memory tiled transpose of NVIDIA's "An Efficient Matrix Transpose in CUDA C/C++" (cuda-samples transpose, coalesced with padding).
// out = in^T for a height x width row-major matrix. A block moves one block_size_x-square tile through shared memory,
// its block_size_y rows of threads stepping down the tile; the +1 column keeps the reads of a tile column off one bank.
__global__ void transpose_tiled(float *out, const float *in, int width, int height) {
    __shared__ float tile[block_size_x][block_size_x + 1];
    int x = blockIdx.x * block_size_x + threadIdx.x;
    int y0 = blockIdx.y * block_size_x;
    for (int j = threadIdx.y; j < block_size_x; j += block_size_y) {
        if (x < width && y0 + j < height) {
            tile[j][threadIdx.x] = in[(size_t)(y0 + j) * width + x];
        }
    }
    __syncthreads();
    int tx = blockIdx.y * block_size_x + threadIdx.x;
    int ty0 = blockIdx.x * block_size_x;
    for (int j = threadIdx.y; j < block_size_x; j += block_size_y) {
        if (tx < height && ty0 + j < width) {
            out[(size_t)(ty0 + j) * height + tx] = tile[threadIdx.x][j];
        }
    }
}
