// shape modelled on: NVIDIA cuda-samples Samples/6_Performance/transpose (copy/naive transpose), written from scratch for kt-tui's corpus
// out is cols x rows, in is rows x cols (row-major)
__global__ void transpose_naive(float *out, const float *in, int rows, int cols)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // column in `in`
    int y = blockIdx.y * blockDim.y + threadIdx.y;   // row in `in`
    if (x < cols && y < rows) {
        out[x * rows + y] = in[y * cols + x];
    }
}
