// shape modelled on: cuSPARSE-style CSR SpMM (csrmm: C = A * B with A sparse m x k in CSR and B, C dense row-major with leading dimensions ldb and ldc), one warp per row of A whose lanes stride the n columns of B, as GPU SpMM row-split kernels do (e.g. GE-SpMM, dgSPARSE's csrspmm_rowcaching), written from scratch for kt-tui's corpus
__global__ void csr_spmm_rowwarp(int m, int n, const int *row_ptr, const int *col_ind, const float *val, const float *B,
                                 int ldb, float *C, int ldc)
{
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (row >= m)
        return;
    const int start = row_ptr[row];
    const int end = row_ptr[row + 1];
    for (int j = lane; j < n; j += 32) {
        float sum = 0.0f;
        for (int p = start; p < end; p++)
            sum += val[p] * B[(size_t)col_ind[p] * ldb + j];
        C[(size_t)row * ldc + j] = sum;
    }
}
