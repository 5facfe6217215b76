// shape modelled on: KernelTuner/kernel_tuner examples/cuda/expdist.cu (pairwise Gaussian distance, output written in a __device__ helper), written from scratch for kt-tui's corpus
__device__ void accumulate(double *cost, int i, double v)
{
    cost[i] = v;
}

__global__ void expdist(const double *A, const double *B, double *cost, int m, int nb, double scale_a, double scale_b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) {
        double s = 0.0;
        for (int j = 0; j < nb; j++) {
            double dx = A[2 * i] - B[2 * j];
            double dy = A[2 * i + 1] - B[2 * j + 1];
            double d2 = dx * dx + dy * dy;
            s += exp(-d2 / (scale_a * scale_a + scale_b * scale_b));
        }
        accumulate(cost, i, s);
    }
}
