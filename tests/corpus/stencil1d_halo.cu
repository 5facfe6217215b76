// shape modelled on: the 1-D stencil of NVIDIA's "CUDA C/C++ Basics" (a block stages its inputs and a halo of RADIUS on each side in __shared__ temp[BLOCK_SIZE + 2 * RADIUS], then sums 2 * RADIUS + 1 neighbours), written from scratch for kt-tui's corpus
#define RADIUS 3
#define BLOCK_SIZE 128
// in holds n + 2 * RADIUS samples: out[i] is the sum of in[i] .. in[i + 2 * RADIUS]
__global__ void stencil_1d(float *out, const float *in, int n)
{
    __shared__ float temp[BLOCK_SIZE + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    temp[l] = g < n ? in[g + RADIUS] : 0.0f;
    if (threadIdx.x < RADIUS) {
        temp[l - RADIUS] = in[g];
        temp[l + blockDim.x] = g + blockDim.x < n + RADIUS ? in[g + blockDim.x + RADIUS] : 0.0f;
    }
    __syncthreads();
    if (g < n) {
        float s = 0.0f;
        for (int k = -RADIUS; k <= RADIUS; k++)
            s += temp[l + k];
        out[g] = s;
    }
}
