// shape modelled on: tiled 1-D convolution kernels of "Programming Massively Parallel Processors" ch. 7 (a block stages its tile and the TAPS - 1 samples after it in shared memory; sizes as constexpr constants), written from scratch for kt-tui's corpus
constexpr int TAPS = 7;
constexpr int TILE = 256;
// x holds n + TAPS - 1 samples: y[i] = sum of w[t] * x[i + t]
__global__ void conv1d_tile(float *y, const float *x, const float *w, int n)
{
    __shared__ float buf[TILE + TAPS - 1];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n + TAPS - 1 ? x[i] : 0.0f;
    if (threadIdx.x < TAPS - 1) {
        int k = i + blockDim.x;
        buf[threadIdx.x + blockDim.x] = k < n + TAPS - 1 ? x[k] : 0.0f;
    }
    __syncthreads();
    if (i < n) {
        float acc = 0.0f;
        for (int t = 0; t < TAPS; t++)
            acc += w[t] * buf[threadIdx.x + t];
        y[i] = acc;
    }
}
