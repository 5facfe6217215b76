// shape modelled on: cuSPARSE-style COO SpMV (y += alpha * A * x with A as (row, col, value) triplets in any order) as simple GPU COO kernels do it, e.g. CUSP's and Ginkgo's basic COO SpMV: one thread per nonzero, its product added to y[row] atomically, written from scratch for kt-tui's corpus
__global__ void spmv_coo_atomic(int nnz, const int *row_ind, const int *col_ind, const float *val, const float *x,
                                float alpha, float *y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nnz)
        return;
    atomicAdd(&y[row_ind[i]], alpha * val[i] * x[col_ind[i]]);
}
