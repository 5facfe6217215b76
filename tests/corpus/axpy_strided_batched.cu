// shape modelled on: strided batched BLAS level-1 kernels (rocBLAS / cuBLAS axpy_strided_batched: vector b at b * stride), written from scratch for kt-tui's corpus
__global__ void axpy_strided_batched(int n, float alpha, const float *x, int incx, int stridex, float *y, int stridey,
                                     int batch_count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (i < n && b < batch_count)
        y[b * stridey + i] += alpha * x[b * stridex + i * incx];
}
