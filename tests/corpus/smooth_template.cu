// shape modelled on: PMPP / CUDA training tiled 1-D stencils with a shared halo, templated on the element type and the block size (as kernel_tuner's vector_add<float, block_size_x> example instantiates), written from scratch for kt-tui's corpus
#define RADIUS 2
// a moving average over 2 * RADIUS + 1 points, the ends replicated; blockDim.x must be BLOCK
template <typename T, int BLOCK>
__global__ void smooth1d(T *out, const T *in, int n)
{
    __shared__ T tile[BLOCK + 2 * RADIUS];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    tile[threadIdx.x + RADIUS] = in[min(i, n - 1)];
    if (threadIdx.x < RADIUS) {
        tile[threadIdx.x] = in[max(i - RADIUS, 0)];
        tile[threadIdx.x + BLOCK + RADIUS] = in[min(i + BLOCK, n - 1)];
    }
    __syncthreads();
    if (i < n) {
        T s = 0;
        for (int k = 0; k <= 2 * RADIUS; k++)
            s += tile[threadIdx.x + k];
        out[i] = s / (2 * RADIUS + 1);
    }
}
