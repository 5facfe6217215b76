// shape modelled on: PMPP textbook ch.7 1-D convolution with a compile-time array length (#define sizes), written from scratch for kt-tui's corpus
#define N 65536
#define RADIUS 3
__global__ void smooth(float *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= RADIUS && i < N - RADIUS) {
        float s = 0.0f;
        for (int d = -RADIUS; d <= RADIUS; d++)
            s += in[i + d];
        out[i] = s / (2 * RADIUS + 1);
    }
}
