// shape modelled on: batched forward substitution with a lower-triangular band matrix (BLAS / cuBLAS tbsv with uplo = lower, trans = N, diag = non-unit over LAPACK band storage, as MAGMA's and cuSOLVER's batched banded solvers call it): a thread per system, column-major band storage with L[i, j] at AB[(i - j) + j * ldab] for 0 <= i - j <= kd, matrices strideAB apart, the right-hand sides interleaved (x[i * ldx + b]) and overwritten by the solution, written from scratch for kt-tui's corpus
__global__ void tbsv_lower_batched(const float *AB, int n, int kd, int ldab, long long strideAB, float *x, int ldx,
                                   int batch)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch)
        return;
    const float *ab = AB + b * strideAB;
    for (int i = 0; i < n; ++i) {
        float s = x[(size_t)i * ldx + b];
        for (int j = max(0, i - kd); j < i; ++j)
            s -= ab[(i - j) + (size_t)j * ldab] * x[(size_t)j * ldx + b];
        x[(size_t)i * ldx + b] = s / ab[(size_t)i * ldab];
    }
}
