// shape modelled on: KernelTuner/kernel_tuner examples/cuda-c++/vector_add_templated.cu (a templated elementwise kernel), written from scratch for kt-tui's corpus
template <typename T>
__global__ void axpy(T *y, const T *x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = y[i] + a * x[i];
}
