// shape modelled on: torch.gather / take_along_dim along the last dimension (ATen's gather kernel, as used to pick the log-probabilities of chosen tokens or the top-k entries of each row): a 2-D grid with x across the k picks of a row and y across the rows, idx rows of k int64 column numbers below src_cols, src rows of src_cols floats, out rows of k, written from scratch for kt-tui's corpus
__global__ void gather_dim1(const float *src, int src_cols, const long long *idx, int k, int rows, float *out)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= k || r >= rows)
        return;
    const size_t o = (size_t)r * k + j;
    out[o] = src[(size_t)r * src_cols + idx[o]];
}
