// shape modelled on: BLAS-1 axpby kernels (e.g. MAGMA/cuBLAS teaching versions) in double precision, written from scratch for kt-tui's corpus
__global__ void daxpby(int n, double a, const double *__restrict__ x, double b, double *__restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b * y[i];
}
