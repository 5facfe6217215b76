// shape modelled on: cuSPARSE csrmv with CUSPARSE_OPERATION_TRANSPOSE as naive GPU codes write it (y = alpha * A^T x + y for a CSR matrix A of m rows and n columns: one thread per row of A scatters csr_val[j] * x[row] into y[csr_col_ind[j]] with atomicAdd), written from scratch for kt-tui's corpus
__global__ void csrmv_trans(int m, int n, float alpha, const float *csr_val, const int *csr_row_ptr,
                            const int *csr_col_ind, const float *x, float *y)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m)
        return;
    const float ax = alpha * x[row];
    const int end = csr_row_ptr[row + 1];
    for (int j = csr_row_ptr[row]; j < end; j++)
        atomicAdd(&y[csr_col_ind[j]], csr_val[j] * ax);
}
