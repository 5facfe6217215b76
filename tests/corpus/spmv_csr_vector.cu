// shape modelled on: Bell & Garland NVR-2008-004 spmv_csr_vector_kernel (one warp per row, the lanes stride the row, then a warp reduction), written from scratch for kt-tui's corpus
__global__ void spmv_csr_vector(int num_rows, const int *row_ptr, const int *col_idx, const float *vals,
                                const float *x, float *y)
{
    int thread = blockIdx.x * blockDim.x + threadIdx.x;
    int row = thread / 32;
    int lane = thread % 32;
    if (row < num_rows) {
        float sum = 0.0f;
        for (int jj = row_ptr[row] + lane; jj < row_ptr[row + 1]; jj += 32)
            sum += vals[jj] * x[col_idx[jj]];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(0xffffffff, sum, offset);
        if (lane == 0)
            y[row] = sum;
    }
}
