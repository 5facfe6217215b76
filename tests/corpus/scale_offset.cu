// shape modelled on: KernelTuner/kernel_tuner examples/cuda/vector_add.cu (1-D elementwise), written from scratch for kt-tui's corpus
// y = alpha * x + beta, one element per thread
__global__ void scale_offset(float *y, const float *x, float alpha, float beta, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i] + beta;
    }
}
