// shape modelled on: Ginkgo's SELL-P sparse matrix-vector product (sliced ELLPACK: rows grouped in slices of SLICE, each slice padded to its longest row and stored column-major inside the slice, slice_sets[s] .. slice_sets[s + 1] the slice's column slots counted in units of SLICE entries, (nrows + SLICE - 1) / SLICE slices; padded slots hold column 0 and value 0), y = alpha * A x + beta * y in double, one thread per row, written from scratch for kt-tui's corpus
#define SLICE 32

__global__ void sellp_spmv(int nrows, const int *slice_sets, const int *col_idxs, const double *vals, const double *x,
                           double alpha, double beta, double *y)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= nrows)
        return;
    const int slice = row / SLICE;
    const int local = row % SLICE;
    const int first = slice_sets[slice];
    const int last = slice_sets[slice + 1];
    double sum = 0.0;
    for (int s = first; s < last; ++s) {
        const size_t k = (size_t)s * SLICE + local;
        sum += vals[k] * x[col_idxs[k]];
    }
    y[row] = alpha * sum + beta * y[row];
}
