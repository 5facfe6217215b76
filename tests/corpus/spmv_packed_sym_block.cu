// shape modelled on: the symmetric packed matrix-vector product of BLAS level 2 (dspmv, cuBLAS's cublasDspmv: a symmetric matrix kept in n * (n + 1) / 2 packed values, y = alpha * A x + beta * y), here the lower triangle row after row, element (i, j), j <= i, at i * (i + 1) / 2 + j (the column-major packing of uplo = 'U' read transposed), one block per row whose threads sum the row in shared memory, double precision, written from scratch for kt-tui's corpus
#define MAX_THREADS 256

__global__ void dspmv_lower_rows(const double *ap, const double *x, int n, double alpha, double beta, double *y)
{
    __shared__ double part[MAX_THREADS];
    const int i = blockIdx.x;
    if (i >= n)
        return;
    const size_t row = (size_t)i * (i + 1) / 2;
    double s = 0.0;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        // (i, j) above the diagonal is (j, i) of the stored lower triangle
        const double a = j <= i ? ap[row + j] : ap[(size_t)j * (j + 1) / 2 + i];
        s += a * x[j];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        y[i] = alpha * part[0] + beta * y[i];
}
