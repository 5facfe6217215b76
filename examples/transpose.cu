// Naive out = in^T for a height x width row-major matrix: reads are coalesced, writes are not.
__global__ void transpose(float *out, const float *in, int width, int height) {
    int x = blockIdx.x * block_size_x + threadIdx.x;
    int y = blockIdx.y * block_size_y + threadIdx.y;
    if (x < width && y < height) {
        out[x * height + y] = in[y * width + x];
    }
}
