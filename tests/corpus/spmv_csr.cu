// shape modelled on: Bell & Garland NVR-2008-004 spmv_csr_scalar_kernel (one row per thread), written from scratch for kt-tui's corpus
__global__ void spmv_csr(int num_rows, const int *row_ptr, const int *col_idx, const float *vals,
                         const float *x, float *y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_rows) {
        float dot = 0.0f;
        for (int jj = row_ptr[row]; jj < row_ptr[row + 1]; jj++)
            dot += vals[jj] * x[col_idx[jj]];
        y[row] = dot;
    }
}
