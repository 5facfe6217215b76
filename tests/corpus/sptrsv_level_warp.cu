// shape modelled on: level-scheduled sparse triangular solves (cuSPARSE csrsv2's analysis / solve split, Naumov's "Parallel Solution of Sparse Triangular Linear Systems in the Preconditioned Iterative Methods on the GPU": rows grouped into levels whose rows depend only on earlier levels, one launch per level), here L x = b for a lower-triangular CSR matrix whose rows keep their columns ascending with the diagonal entry last (stored even when unit_diag asks for a unit diagonal, as CUSPARSE_DIAG_TYPE_UNIT ignores it), the launch solving the count rows level_rows[first] .. level_rows[first + count - 1], one warp per row: its lanes sum L(row, j) x[j] over the off-diagonal entries, a shuffle tree, lane 0 divides by the diagonal, written from scratch for kt-tui's corpus
__global__ void sptrsv_level(const int *row_ptr, const int *col_idx, const float *val, const float *b,
                             const int *level_rows, int first, int count, int unit_diag, float *x)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (w >= count)
        return;
    const int row = level_rows[first + w];
    const int diag = row_ptr[row + 1] - 1;
    float sum = 0.0f;
    for (int k = row_ptr[row] + lane; k < diag; k += 32)
        sum += val[k] * x[col_idx[k]];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0) {
        const float r = b[row] - sum;
        x[row] = unit_diag ? r : r / val[diag];
    }
}
