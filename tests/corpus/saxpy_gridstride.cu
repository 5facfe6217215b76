// shape modelled on: NVIDIA developer blog "CUDA Pro Tip: grid-stride loops" saxpy, written from scratch for kt-tui's corpus
__global__ void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
