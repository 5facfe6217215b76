// shape modelled on: CUSP's DIA sparse matrix-vector product (the diagonal format of Bell & Garland: num_diags diagonals, diagonal d at column offset diag_offsets[d], negative below the main one, its values stored by row in a column of a pitch-aligned dense array, entries that fall outside the matrix skipped), y = A x, one thread per row, written from scratch for kt-tui's corpus
__global__ void spmv_dia(int num_rows, int num_cols, int num_diags, int pitch, const int *diag_offsets,
                         const float *values, const float *x, float *y)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= num_rows)
        return;
    float sum = 0.0f;
    for (int d = 0; d < num_diags; ++d) {
        const int col = row + diag_offsets[d];
        if (col >= 0 && col < num_cols)
            sum += values[(size_t)d * pitch + row] * x[col];
    }
    y[row] = sum;
}
