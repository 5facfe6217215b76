// shape modelled on: thrust::gather / PMPP-style gather through an index map, written from scratch for kt-tui's corpus
__global__ void gather(float *dst, const float *src, const int *map, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dst[i] = src[map[i]];
}
