// shape modelled on: index_add / scatter-add kernels (atomicAdd into target[index[i]]), written from scratch for kt-tui's corpus
__global__ void scatter_add(float *target, const float *src, const int *index, int n_src)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_src)
        atomicAdd(&target[index[i]], src[i]);
}
