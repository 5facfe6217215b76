// shape modelled on: Rodinia gaussian (Fan1: the multipliers of elimination step t, one thread per row below t), written from scratch for kt-tui's corpus
__global__ void fan1(float *m, const float *a, int n, int t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n - 1 - t)
        return;
    int row = i + t + 1;
    m[row * n + t] = a[row * n + t] / a[t * n + t];
}
