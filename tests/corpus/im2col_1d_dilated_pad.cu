// shape modelled on: the im2col lowering of a dilated 1-D convolution (Caffe's and PyTorch's im2col_gpu with dilation as used by conv1d / nn.Unfold, WaveNet's and TCN's dilated causal stacks lowered to a GEMM): a 2-D grid, x over the lout output positions that the kernel computes from length, pad, dilation, ksize and stride, y over the channels * ksize rows of the column matrix, taps outside the zero-padded signal written as 0, written from scratch for kt-tui's corpus
__global__ void im2col_1d(const float *in, int channels, int length, int ksize, int pad, int stride, int dilation,
                          float *col)
{
    const int lout = (length + 2 * pad - dilation * (ksize - 1) - 1) / stride + 1;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (t >= lout || row >= channels * ksize)
        return;
    const int c = row / ksize;
    const int k = row % ksize;
    const int pos = t * stride - pad + k * dilation;
    col[(size_t)row * lout + t] = (pos >= 0 && pos < length) ? in[(size_t)c * length + pos] : 0.0f;
}
