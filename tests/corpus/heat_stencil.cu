// shape modelled on: KernelTuner/kernel_tuner examples/cuda/stencil.py (2-D 5-point stencil on a padded grid), written from scratch for kt-tui's corpus
// in has a one-cell border: (w+2) x (h+2); out is w x h
__global__ void heat_step(float *out, const float *in, int w, int h, float k)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        int stride = w + 2;
        int c = (y + 1) * stride + (x + 1);
        float lap = in[c - 1] + in[c + 1] + in[c - stride] + in[c + stride] - 4.0f * in[c];
        out[y * w + x] = in[c] + k * lap;
    }
}
