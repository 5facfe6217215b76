// shape modelled on: bitonic sort step kernels in CUDA teaching code (i ^ j partner, k decides direction), written from scratch for kt-tui's corpus
__global__ void bitonic_step(float *values, int j, int k, int n)
{
    unsigned int i = threadIdx.x + blockDim.x * blockIdx.x;
    unsigned int ixj = i ^ j;
    if (i < n && ixj > i && ixj < n) {
        bool up = (i & k) == 0;
        float a = values[i], b = values[ixj];
        if ((up && a > b) || (!up && a < b)) {
            values[i] = b;
            values[ixj] = a;
        }
    }
}
