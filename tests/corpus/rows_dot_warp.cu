// shape modelled on: warp-per-row kernels that count warps per block (row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize, e.g. PyTorch's cosine-similarity / row-dot reductions), written from scratch for kt-tui's corpus
__global__ void rows_dot(const float *a, const float *b, float *dots, int nrows, int dim)
{
    int warps_per_block = blockDim.x / warpSize;
    int row = blockIdx.x * warps_per_block + threadIdx.x / warpSize;
    int lane = threadIdx.x % warpSize;
    if (row < nrows) {
        float s = 0.0f;
        for (int k = lane; k < dim; k += warpSize)
            s += a[row * dim + k] * b[row * dim + k];
        for (int offset = warpSize / 2; offset > 0; offset /= 2)
            s += __shfl_down_sync(0xffffffff, s, offset);
        if (lane == 0)
            dots[row] = s;
    }
}
