// shape modelled on: cuBLAS-style batched strided complex dot product (cublasZdotc over a batch: result[b] = sum over i of conj(x_b[i * incx]) * y_b[i], vector b of x and y at b * stridex and b * stridey elements), one block per vector pair with a shared-memory tree as MAGMA-like batched BLAS-1 kernels do, written from scratch for kt-tui's corpus
#define MAX_THREADS 1024
__global__ void zdotc_batched(int n, const double2 *x, int incx, long long stridex, const double2 *y,
                              long long stridey, double2 *result, int batch)
{
    __shared__ double part_re[MAX_THREADS];
    __shared__ double part_im[MAX_THREADS];
    const int b = blockIdx.x;
    if (b >= batch)
        return;
    const double2 *xb = x + b * stridex;
    const double2 *yb = y + b * stridey;
    double re = 0.0, im = 0.0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const double2 u = xb[(long long)i * incx];
        const double2 v = yb[i];
        re += u.x * v.x + u.y * v.y;
        im += u.x * v.y - u.y * v.x;
    }
    part_re[threadIdx.x] = re;
    part_im[threadIdx.x] = im;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            part_re[threadIdx.x] += part_re[threadIdx.x + s];
            part_im[threadIdx.x] += part_im[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        result[b] = make_double2(part_re[0], part_im[0]);
}
