// shape modelled on: templated dense gemv kernels (one row per thread, type as template argument), written from scratch for kt-tui's corpus
template <typename real>
__global__ void gemv(const real *__restrict__ A, const real *__restrict__ x, real *__restrict__ y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        real acc = 0;
        for (int c = 0; c < cols; ++c)
            acc += A[r * cols + c] * x[c];
        y[r] = acc;
    }
}
