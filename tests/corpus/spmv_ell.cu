// shape modelled on: Bell & Garland spmv_ell_kernel (column-major ELLPACK, -1 padding), written from scratch for kt-tui's corpus
__global__ void spmv_ell(int num_rows, int num_cols, int max_per_row, const int *indices, const float *data,
                         const float *x, float *y)
{
    int row = blockDim.x * blockIdx.x + threadIdx.x;
    if (row < num_rows) {
        float sum = 0.0f;
        for (int n = 0; n < max_per_row; n++) {
            int col = indices[n * num_rows + row];
            float val = data[n * num_rows + row];
            if (col >= 0 && col < num_cols)
                sum += val * x[col];
        }
        y[row] = sum;
    }
}
