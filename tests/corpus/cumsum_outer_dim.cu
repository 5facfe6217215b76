// shape modelled on: PyTorch ATen's scan along a non-innermost dimension (aten/src/ATen/native/cuda/ScanKernels.cu / ScanUtils.cuh, tensor_kernel_scan_outer_dim: the tensor viewed as num_orows x row_size x num_irows, one thread per (orow, irow) column walks its row_size elements num_irows apart), here torch.cumsum of int8 into int64, written from scratch for kt-tui's corpus
__global__ void cumsum_outer_dim(long long *tgt, const signed char *src, int num_orows, int num_irows, int row_size)
{
    const int irow = blockIdx.x * blockDim.x + threadIdx.x;
    const int orow = blockIdx.y * blockDim.y + threadIdx.y;
    if (irow >= num_irows || orow >= num_orows)
        return;
    const size_t base = (size_t)orow * row_size * num_irows + irow;
    long long acc = 0;
    for (int r = 0; r < row_size; r++) {
        acc += src[base + (size_t)r * num_irows];
        tgt[base + (size_t)r * num_irows] = acc;
    }
}
