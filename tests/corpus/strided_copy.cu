// shape modelled on: NVIDIA developer blog "How to access global memory efficiently" strided kernel, written from scratch for kt-tui's corpus
__global__ void strided_copy(float *dst, const float *src, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[i * stride];
}
