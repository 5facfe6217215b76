// shape modelled on: CUDA by Example ch.9 histo_kernel (global atomicAdd per byte), written from scratch for kt-tui's corpus
#define NUM_BINS 256
__global__ void histogram256(const unsigned char *data, unsigned int *hist, int size)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd(&hist[data[i]], 1u);
        i += stride;
    }
}
