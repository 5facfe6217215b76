// shape modelled on: PyTorch's sort of short rows (aten/src/ATen/native/cuda/Sort.cu with SortUtils.cuh's bitonicSortKVInPlace: one block per row sorts up to 2 * blockDim keys in shared memory beside their int64 positions, the row padded past its end with +inf), ascending, doubles, rows `stride` elements apart, written from scratch for kt-tui's corpus
#ifndef block_size_x
#define block_size_x 512
#endif
#define SORT_SIZE (2 * block_size_x)

__global__ void sort_rows_kv(const double *keys_in, double *keys_out, long long *indices_out, int nrows, int ncols,
                             int stride)
{
    __shared__ double skeys[SORT_SIZE];
    __shared__ long long sidx[SORT_SIZE];
    const int row = blockIdx.x;
    if (row >= nrows)
        return;
    const double *in = keys_in + (size_t)row * stride;
    for (int i = threadIdx.x; i < SORT_SIZE; i += blockDim.x) {
        skeys[i] = i < ncols ? in[i] : INFINITY;
        sidx[i] = i;
    }
    __syncthreads();
    for (int size = 2; size <= SORT_SIZE; size <<= 1) {
        for (int j = size / 2; j > 0; j >>= 1) {
            for (int t = threadIdx.x; t < SORT_SIZE / 2; t += blockDim.x) {
                const int pos = 2 * t - (t & (j - 1));
                const bool ascending = (pos & size) == 0;
                if ((skeys[pos] > skeys[pos + j]) == ascending) {
                    const double kt = skeys[pos];
                    skeys[pos] = skeys[pos + j];
                    skeys[pos + j] = kt;
                    const long long it = sidx[pos];
                    sidx[pos] = sidx[pos + j];
                    sidx[pos + j] = it;
                }
            }
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < ncols; i += blockDim.x) {
        keys_out[(size_t)row * stride + i] = skeys[i];
        indices_out[(size_t)row * stride + i] = sidx[i];
    }
}
