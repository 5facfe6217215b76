// shape modelled on: torch_scatter scatter_max / PyTorch scatter_reduce(reduce="amax") along dim 0 (row r's features go to segment index[r], atomicMax), written from scratch for kt-tui's corpus
__global__ void scatter_max_rows(int *out, const int *src, const int *index, int rows, int dim)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col < dim && row < rows)
        atomicMax(&out[index[row] * dim + col], src[row * dim + col]);
}
