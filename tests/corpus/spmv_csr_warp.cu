// shape modelled on: Bell & Garland NVR-2008-004 spmv_csr_vector_kernel (one warp per row, lanes stride the row, a warp reduction), written from scratch for kt-tui's corpus
__global__ void spmv_csr_vector(int num_rows, const int *ptr, const int *indices, const float *data, const float *x,
                                float *y)
{
    int thread_id = blockDim.x * blockIdx.x + threadIdx.x;
    int warp_id = thread_id / 32;
    int lane = thread_id & (32 - 1);
    int row = warp_id;
    if (row < num_rows) {
        int row_start = ptr[row];
        int row_end = ptr[row + 1];
        float sum = 0.0f;
        for (int jj = row_start + lane; jj < row_end; jj += 32)
            sum += data[jj] * x[indices[jj]];
        for (int offset = 16; offset > 0; offset /= 2)
            sum += __shfl_down_sync(0xffffffff, sum, offset);
        if (lane == 0)
            y[row] += sum;
    }
}
